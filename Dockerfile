# The service image: `docker build -t umpire . && docker run -p 8000:8000 umpire`.
# Slim Python 3.11, the runtime dependencies only (from requirements.lock), an unprivileged user; it runs what
# `make run` runs (python -m service.run.serve): gunicorn's gevent workers and a sweeper,
# on REDIS_URL's Redis (REDIS_CLUSTER=1: a Redis Cluster), else on an embedded Redis in /data.
# BASE: another image with Python 3.11's `python` and `pip` on the PATH (the container test builds
# on a stand-in made from the Debian archive: container/base.sh).  A build behind a proxy that
# re-signs TLS passes its CA bundle as the secret `ca` (--secret id=ca,src=/path/to/bundle.crt).
ARG BASE=python:3.11-slim
# hadolint ignore=DL3006
FROM ${BASE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    HOST=0.0.0.0 \
    PORT=8000 \
    WEB_CONCURRENCY=2

WORKDIR /app

# The runtime's exact versions, each file checked against its hash (requirements.lock, `make lock`), in a layer
# of their own that a change to the code does not rebuild; then the project itself over them, built with the
# lock's setuptools (no build isolation, which would fetch one of its own choosing).
COPY requirements.lock ./
RUN --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
    && pip install --no-cache-dir --require-hashes -r requirements.lock
COPY pyproject.toml README.md ./
COPY engine/ engine/
COPY service/ service/
COPY views/ views/
COPY umpire/ umpire/
RUN pip install --no-cache-dir --no-deps --no-build-isolation . \
    && useradd --system --no-create-home --uid 10001 --shell /usr/sbin/nologin umpire \
    && mkdir -p /data \
    && chown 10001 /data

# Where the embedded Redis keeps its files when no REDIS_URL is given, and the workers' metrics.
ENV DATA_DIR=/data
VOLUME ["/data"]

# Numeric, so that the host can resolve it (and Kubernetes' runAsNonRoot can check it).
USER 10001

EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/v1/health', timeout=4).status != 200)"]

# gunicorn with WEB_CONCURRENCY gevent workers (a waiting read or an event stream is a greenlet,
# not a thread), and a sweeper unless SWEEPER=0; SIGTERM stops them in order (service/run/serve.py).
CMD ["python", "-m", "service.run.serve"]
