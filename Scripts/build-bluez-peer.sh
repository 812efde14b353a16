#!/bin/bash
# Builds BlueZ's own GATT test peers (btgatt-server and btgatt-client), which no
# Debian 12 package ships, from Debian's bluez-source into .lab/bluez/, for the
# kernel lab: an independent server for our GATT client, and an independent
# client to compare read latency with. We run them, we do not copy them.
# Idempotent; prints the path of btgatt-client, then that of btgatt-server (last).
#
#   Scripts/build-bluez-peer.sh           # build them (Scripts/setup.sh runs this)
#   Scripts/build-bluez-peer.sh --check   # print the paths when built; else exit 3
#                                         # and say to run Scripts/setup.sh
#
# The tests only ever --check: gcc does not run beside the suite.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
OUT="$ROOT/.lab/bluez"
SERVER="$OUT/btgatt-server"
CLIENT="$OUT/btgatt-client"
if [ -x "$SERVER" ] && [ -x "$CLIENT" ]; then echo "$CLIENT"; echo "$SERVER"; exit 0; fi
if [ "${1:-}" = "--check" ]; then
    echo "build-bluez-peer: btgatt-client and btgatt-server are not built in $OUT: run Scripts/setup.sh (as root) first" >&2
    exit 3
fi
# Scripts/setup.sh installs what the build needs, before it runs this.
for p in bluez-source gcc libc6-dev bzip2; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        echo "build-bluez-peer: $p is not installed: run Scripts/setup.sh (as root)" >&2
        exit 3
    fi
done
rm -rf "$OUT/src"
mkdir -p "$OUT/src"
tar -xjf /usr/src/bluez.tar.bz2 -C "$OUT/src"
cd "$OUT/src/bluez-source"
# Debian's source tree carries its config.h; the tools need only the shared
# ATT/GATT code, the mainloop and libbluetooth's helpers.
COMMON="src/shared/att.c src/shared/gatt-db.c src/shared/gatt-helpers.c
    src/shared/mainloop.c src/shared/mainloop-notify.c src/shared/io-mainloop.c src/shared/timeout-mainloop.c
    src/shared/util.c src/shared/queue.c src/shared/crypto.c src/shared/ecc.c
    lib/bluetooth.c lib/hci.c lib/uuid.c"
# shellcheck disable=SC2086 # COMMON is a list of paths without spaces
gcc -O2 -w -DHAVE_CONFIG_H -I. -Ilib -o "$SERVER.tmp" tools/btgatt-server.c src/shared/gatt-server.c $COMMON >&2
# shellcheck disable=SC2086
gcc -O2 -w -DHAVE_CONFIG_H -I. -Ilib -o "$CLIENT.tmp" tools/btgatt-client.c src/shared/gatt-client.c $COMMON >&2
mv "$SERVER.tmp" "$SERVER"
mv "$CLIENT.tmp" "$CLIENT"
rm -rf "$OUT/src"
echo "$CLIENT"
echo "$SERVER"
