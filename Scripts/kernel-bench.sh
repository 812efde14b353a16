#!/bin/bash
# ATT Read round trip over kernel sockets in the kernel lab VM: our GATT client
# against our GATT server, then BlueZ's btgatt-client against the same server,
# in one VM run, from a release build. Also times a fixed CPU loop on the host
# and in the VM, so the figures can be read against the TCG slowdown.
#   Scripts/kernel-bench.sh [reads]      (default 1000)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"
READS=${1:-1000}
swift build -c release --product KernelLabProbe >&2
PROBE="$ROOT/.build/release/KernelLabProbe"
CLIENT=$(Scripts/build-bluez-peer.sh | head -n 1)
echo "host:"
"$PROBE" calibrate | grep calibrate
echo "VM (TCG), one run:"
KERNEL_LAB_TIMEOUT=${KERNEL_LAB_TIMEOUT:-300} Scripts/kernel-lab.sh sh -c \
    "'$PROBE' calibrate && exec '$PROBE' bench $READS '$CLIENT'"
