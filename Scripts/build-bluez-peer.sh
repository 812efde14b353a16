#!/bin/bash
# Builds BlueZ's own GATT test peer (btgatt-server), which no Debian 12 package
# ships, from Debian's bluez-source into .lab/bluez/, for the kernel lab. It is
# an independent peer for our GATT client: we run it, we do not copy it.
# Idempotent; prints the path of the binary.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
OUT="$ROOT/.lab/bluez"
BIN="$OUT/btgatt-server"
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
for p in bluez-source gcc libc6-dev bzip2; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=300 "$p" >&2
    fi
done
rm -rf "$OUT/src"
mkdir -p "$OUT/src"
tar -xjf /usr/src/bluez.tar.bz2 -C "$OUT/src"
cd "$OUT/src/bluez-source"
# Debian's source tree carries its config.h; the server needs only the shared
# ATT/GATT code, the mainloop and libbluetooth's helpers.
gcc -O2 -w -DHAVE_CONFIG_H -I. -Ilib -o "$BIN.tmp" tools/btgatt-server.c \
    src/shared/att.c src/shared/gatt-db.c src/shared/gatt-server.c src/shared/gatt-helpers.c \
    src/shared/mainloop.c src/shared/mainloop-notify.c src/shared/io-mainloop.c src/shared/timeout-mainloop.c \
    src/shared/util.c src/shared/queue.c src/shared/crypto.c src/shared/ecc.c \
    lib/bluetooth.c lib/hci.c lib/uuid.c >&2
mv "$BIN.tmp" "$BIN"
rm -rf "$OUT/src"
echo "$BIN"
