#!/usr/bin/env bash
# Installs the Debian 12 packages Attune builds and tests with. Idempotent; run as root.
#   libbluetooth-dev  CBlueZ (kernel L2CAP/HCI sockets through libbluetooth)
#   libssl-dev        CCrypto (AES-CMAC for the Database Hash and signed writes)
#   libyaml-dev       CYAML (the gateway's YAML config loader)
#   tshark            the independent decoder our capture tests compare against
#   qemu/busybox/bluez/kmod/cpio/xz  the kernel lab VM (Scripts/kernel-lab.sh)
#   python3-venv      the Bumble interop venv (Scripts/interop/)
#   bluez-source/gcc/libc6-dev/bzip2  BlueZ's btgatt-server and btgatt-client for the kernel lab
#                     (Scripts/build-bluez-peer.sh builds them; it installs nothing at test time)
#   libmosquitto-dev/mosquitto/mosquitto-clients  CMosquitto (MQTTClient) and the real broker its tests run
set -euo pipefail
packages=(libbluetooth-dev libssl-dev libyaml-dev pkg-config tshark qemu-system-x86 busybox-static bluez bluez-test-tools
          kmod cpio xz-utils python3-venv bluez-source gcc libc6-dev bzip2
          libmosquitto-dev mosquitto mosquitto-clients)
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
