#!/usr/bin/env bash
# Everything Attune's build and tests need, made once, before `swift test`: the tests
# only check for these and fail saying to run this script, so nothing is downloaded,
# pip-installed or compiled beside timing-sensitive tests. Run as root on Debian 12
# (.ci/run does). Idempotent: a second run finds everything present in a few seconds.
#
# 1. Debian packages:
#   libbluetooth-dev  CBlueZ (kernel L2CAP/HCI sockets through libbluetooth)
#   libssl-dev        CCrypto (AES-CMAC for the Database Hash and signed writes)
#   libyaml-dev       CYAML (the gateway's YAML config loader)
#   tshark            the independent decoder our capture tests compare against
#   qemu/busybox/bluez/kmod/cpio/xz  the kernel lab VM (Scripts/kernel-lab.sh)
#   python3-venv      the Bumble interop venv (Scripts/interop/)
#   bluez-source/gcc/libc6-dev/bzip2  BlueZ's btgatt-server and btgatt-client for the kernel lab
#   libmosquitto-dev/mosquitto/mosquitto-clients  CMosquitto (MQTTClient) and the real broker its tests run
#   chromium          headless, renders `conformance --html` pages in ConformanceTests
# 2. Scripts/interop/.venv: the pinned Bumble, the interop peer (Scripts/interop/setup.sh).
# 3. .lab/kernel: Debian's kernel unpacked, and the lab's initramfs (Scripts/kernel-lab.sh --setup).
# 4. .lab/bluez: btgatt-server and btgatt-client built from bluez-source (Scripts/build-bluez-peer.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(libbluetooth-dev libssl-dev libyaml-dev pkg-config tshark qemu-system-x86 busybox-static bluez bluez-test-tools
          kmod cpio xz-utils python3-venv bluez-source gcc libc6-dev bzip2
          libmosquitto-dev mosquitto mosquitto-clients chromium)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    # tshark asks whether non-root users may capture; answer before it asks.
    echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
    apt-get update -qq -o DPkg::Lock::Timeout=300 >&2
    apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends "${missing[@]}" >&2
fi
echo "setup: all packages present (${#packages[@]})" >&2

# Each step below returns at once when its result is already in place.
bash Scripts/interop/setup.sh >/dev/null
echo "setup: Bumble venv ready (Scripts/interop/.venv)" >&2
bash Scripts/kernel-lab.sh --setup
echo "setup: kernel lab prepared (.lab/kernel)" >&2
bash Scripts/build-bluez-peer.sh >/dev/null
echo "setup: BlueZ peer tools built (.lab/bluez)" >&2
