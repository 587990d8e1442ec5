# The service image: `docker build -t umpire . && docker run -p 8000:8000 umpire`.
# Slim Python 3.11, the runtime dependencies only, an unprivileged user, gunicorn.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    WEB_CONCURRENCY=2 \
    GUNICORN_CMD_ARGS="--bind=0.0.0.0:8000 --worker-class=gthread --threads=8 --timeout=60 --access-logfile=-"

WORKDIR /app

COPY pyproject.toml README.md ./
COPY engine/ engine/
COPY service/ service/
COPY views/ views/
RUN pip install --no-cache-dir . \
    && useradd --system --no-create-home --uid 10001 --shell /usr/sbin/nologin umpire \
    && mkdir /data \
    && chown 10001 /data

# Where the embedded Redis keeps its files when no REDIS_URL is given.
ENV DATA_DIR=/data
VOLUME ["/data"]

# Numeric, so that the host can resolve it (and Kubernetes' runAsNonRoot can check it).
USER 10001

EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/v1/health', timeout=4).status != 200)"]

# gunicorn reads its settings from GUNICORN_CMD_ARGS and its workers from WEB_CONCURRENCY;
# threaded workers, so that a waiting read (GET /v1/matches/{id}?wait_ply=N) holds a thread, not a worker.
CMD ["gunicorn", "service:create_app()"]
