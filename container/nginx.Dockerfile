# The buffering proxy in front of the app replicas in docker-compose.yml: Debian's nginx with
# deploy/nginx.conf (the one source of its settings), as the unprivileged www-data (uid 33) on port 8080.
# BASE: a Debian bookworm image (the container test builds on container/base.sh's).
# UPSTREAMS (at run time): the app replicas it balances, "host:port host:port ...".
ARG BASE=debian:bookworm-slim
# hadolint ignore=DL3006
FROM ${BASE}

# Debian's own nginx, kept current by the archive's security updates rather than pinned.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/umpire-nginx \
    && chown www-data:www-data /var/lib/umpire-nginx

COPY deploy/nginx.conf /etc/umpire-nginx/nginx.conf.in
COPY container/nginx-start.sh /usr/local/bin/nginx-start

ENV UPSTREAMS="app:8000 app-2:8000" \
    LISTEN=8080

# www-data, numeric so that the host can resolve it
USER 33
WORKDIR /var/lib/umpire-nginx
EXPOSE 8080
CMD ["nginx-start"]
