#!/usr/bin/env bash
# The base image the container test builds on: Debian bookworm (minbase) from the Debian archive,
# with Python 3.11 in a venv on the PATH (a stand-in for python:3.11-slim: `python` and `pip`)
# and redis-server 7 (a stand-in for redis:7-alpine: redis-server, redis-cli, sh, getent, awk).
# Made once and kept in podman's store as $BASE_IMAGE; this script does nothing when it is there.
# Needs root, debootstrap and podman (container/setup.sh installs them).
set -euo pipefail
BASE_IMAGE=${BASE_IMAGE:-localhost/umpire-base:bookworm}
if podman image exists "$BASE_IMAGE"; then
  echo "base image $BASE_IMAGE is there"
  exit 0
fi
root=$(mktemp -d /var/tmp/umpire-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
echo "building $BASE_IMAGE from the Debian archive (a few minutes, once)"
debootstrap --variant=minbase --include=python3,python3-venv,redis-server,redis-tools,ca-certificates \
  bookworm "$root" >"$root.log" 2>&1 || { tail -30 "$root.log"; exit 1; }
rm -f "$root.log"
chroot "$root" python3 -m venv /opt/python
ln -sf /opt/python/bin/python /opt/python/bin/pip "$root/usr/local/bin/"
mkdir -p "$root/data"
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin
tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/opt/python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'WORKDIR /data' \
  --change 'CMD ["bash"]' - "$BASE_IMAGE"
