#!/bin/sh
# deploy/nginx.conf with its three @...@ marks filled in (tests/test_proxy.py does the same on
# loopback): nginx's files in /var/lib/umpire-nginx, listening on $LISTEN, one upstream server
# line per address in $UPSTREAMS.  Errors go to the container's log.
set -eu
prefix=/var/lib/umpire-nginx
mkdir -p "$prefix/body" "$prefix/proxy" "$prefix/fastcgi" "$prefix/uwsgi" "$prefix/scgi"
servers=""
for address in $UPSTREAMS; do
  servers="$servers        server $address;\n"
done
[ -n "$servers" ] || { echo "UPSTREAMS names no app" >&2; exit 1; }
sed -e "s|@PREFIX@|$prefix|g" -e "s|@LISTEN@|$LISTEN|g" \
  -e "s|^ *server @UPSTREAM@;|$servers|" \
  -e "s|^error_log .*|error_log stderr warn;|" \
  /etc/umpire-nginx/nginx.conf.in >"$prefix/nginx.conf"
exec nginx -e stderr -p "$prefix" -c "$prefix/nginx.conf"
