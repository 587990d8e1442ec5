#!/usr/bin/env bash
# What the container test needs on the machine (as root, as CI runs): podman with runc, and
# debootstrap for the base image (container/base.sh).  podman-compose comes with the project's
# development dependencies (pyproject.toml).  Does nothing when all is there.
set -euo pipefail
missing=()
for tool in podman runc debootstrap; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get install -y "${missing[@]}" || { apt-get update && apt-get install -y "${missing[@]}"; }
fi
# podman as root in this sandbox: runc, and no default ulimits (it may not raise them).
conf=/etc/containers/containers.conf
mkdir -p /etc/containers
if ! grep -q '^default_ulimits' "$conf" 2>/dev/null; then
  printf '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n' >>"$conf"
fi
