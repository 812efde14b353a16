#!/bin/bash
# Runs a command inside a QEMU guest that boots Debian's own kernel (with
# Bluetooth) and two virtual LE controllers (btvirt: hci0 and hci1 on one
# emulated radio), in the project folder, and returns the command's exit code.
#
#   Scripts/kernel-lab.sh COMMAND [ARGS...]
#   Scripts/kernel-lab.sh --setup          # prepare .lab/ only (Scripts/setup.sh runs it)
#   Scripts/kernel-lab.sh --check          # 0: QEMU runs here; 1: it cannot (the only
#                                          # reason tests may skip); 3: not installed yet
#
# A run never prepares anything: the kernel, the initramfs and the packages come from
# --setup, which Scripts/setup.sh runs once, so no download, depmod or cpio runs beside
# the test suite. An unprepared or outdated lab fails with 125 and says to run
# Scripts/setup.sh.
#
# Exit codes: the command's own; 124 when it timed out; 125 when the lab failed.
#
# Environment:
#   KERNEL_LAB_TIMEOUT   seconds the command may run inside the guest (default 120)
#   KERNEL_LAB_BTMON     save a btmon capture (btsnoop) of the run to this path
#   KERNEL_LAB_VERBOSE   1: show the guest console and setup steps
#   KERNEL_LAB_KEEP      1: keep the run folder under .lab/runs/
#   KERNEL_LAB_CONTROLLERS how many btvirt controllers (hci0…) to start and power (default 2)
#   KERNEL_LAB_BLUETOOTHD 1: also run D-Bus and bluetoothd in the guest, to see
#                        how our raw sockets share the adapters with it
#   ATTUNE_*             passed through into the guest's environment
#
# The host's / is shared read-only over 9p with a tmpfs overlay on top, so host
# binaries (Swift builds, BlueZ tools) run unchanged; the project folder is
# shared read-write at the same path, so results come back.
set -u -o pipefail

LAB_FAILURE=125
LAB_TIMEOUT=124
MODULES_IN_GUEST="bluetooth af_alg algif_hash algif_skcipher cmac ecb hci_vhci"
INITRAMFS_MODULES="virtio_pci 9pnet_virtio 9p overlay"
APT_PACKAGES="qemu-system-x86 busybox-static bluez bluez-test-tools kmod cpio xz-utils"

log() { [ "${KERNEL_LAB_VERBOSE:-0}" = 1 ] && echo "kernel-lab: $*" >&2; return 0; }
fail() { echo "kernel-lab: $*" >&2; exit "$LAB_FAILURE"; }

# ---------------------------------------------------------------- guest side
# Stage 2, run by the initramfs /init after switch_root, as /bin/bash.
guest_main() {
    GUEST_RUN="$1"
    local run="$1"
    # Lab messages go where the host shows them, and to the console log.
    lab_error() { echo "kernel-lab (guest): $*" | tee -a "$run/stderr" >&2; }
    export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    export HOME=/root LANG=C.UTF-8 TERM=dumb
    # shellcheck disable=SC1091
    . "$run/guest.env"
    status=$LAB_FAILURE
    guest_finish() {
        echo "$status" > "$GUEST_RUN/status"
        sync
        # isa-debug-exit ends QEMU at once; poweroff is the fallback.
        printf '\001' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
        poweroff -f
    }
    trap guest_finish EXIT

    mkdir -p /lib/modules/"$LAB_KVER"
    mount --bind "$LAB_KROOT/lib/modules/$LAB_KVER" /lib/modules/"$LAB_KVER" || { lab_error "cannot bind modules"; return; }
    # shellcheck disable=SC2086
    modprobe -a $MODULES_IN_GUEST || { lab_error "modprobe failed"; return; }

    local btmon_pid=
    if [ -n "${LAB_BTMON:-}" ]; then
        btmon -w "$run/btmon.snoop" >/dev/null 2>&1 &
        btmon_pid=$!
    fi
    local attempt
    for attempt in 1 2 3; do
        start_controllers "$run" && break
        [ $attempt = 3 ] && { dmesg > "$run/dmesg.log"; lab_error "the virtual controllers did not come up"; return; }
        echo "kernel-lab (guest): controllers not ready, restarting btvirt (attempt $attempt)" >> "$run/btmgmt.log"
    done

    if [ "${LAB_BLUETOOTHD:-0}" = 1 ]; then
        mkdir -p /run/dbus
        dbus-daemon --system --fork --nopidfile || { lab_error "dbus-daemon failed"; return; }
        /usr/libexec/bluetooth/bluetoothd -n >"$run/bluetoothd.log" 2>&1 &
        for i in $(seq 1 50); do
            grep -q 'management interface' "$run/bluetoothd.log" && break
            sleep 0.2
        done
        grep -q 'management interface' "$run/bluetoothd.log" || { lab_error "bluetoothd did not start"; return; }
        # Let it finish reading the controllers before the command starts.
        sleep 1
    fi

    cd "$LAB_PROJECT" || return
    eval "set -- $(cat "$run/argv")"
    echo ready > "$run/ready"
    local started=$SECONDS
    # An empty pipe, not /dev/null, on stdin: btmgmt prints nothing when its
    # stdin is /dev/null.
    : | timeout --kill-after=5 "$LAB_COMMAND_TIMEOUT" "$@" >"$run/stdout" 2>"$run/stderr"
    status=$?
    # timeout reports 137 when it had to KILL after the TERM; both mean "timed out".
    [ "$status" = 137 ] && [ $((SECONDS - started)) -ge "$LAB_COMMAND_TIMEOUT" ] && status=$LAB_TIMEOUT
    if [ -n "$btmon_pid" ]; then
        kill -INT "$btmon_pid" 2>/dev/null
        wait "$btmon_pid" 2>/dev/null
    fi
}

# Starts btvirt and powers hci0 and hci1; fails when they do not come up, so
# the caller can start over. Under a loaded TCG host the kernel's HCI Reset to
# a freshly created vhci controller can time out before btvirt answers; mgmt
# then never adds the index, and only a fresh controller recovers.
start_controllers() {
    local run="$1" i tries
    if [ -n "${BTVIRT_PID:-}" ]; then
        kill "$BTVIRT_PID" 2>/dev/null
        wait "$BTVIRT_PID" 2>/dev/null
        for tries in $(seq 1 50); do
            [ -e /sys/class/bluetooth/hci0 ] || [ -e /sys/class/bluetooth/hci1 ] || break
            sleep 0.1
        done
    fi
    local count="${LAB_CONTROLLERS:-2}" last
    last=$((count - 1))
    btvirt -L -l"$count" >>"$run/btvirt.log" 2>&1 &
    BTVIRT_PID=$!
    for tries in $(seq 1 100); do
        [ -e /sys/class/bluetooth/hci$last ] && break
        sleep 0.1
    done
    for i in $(seq 0 "$last"); do
        [ -e /sys/class/bluetooth/hci$i ] || return 1
        tries=0
        # sysfs shows the controller before mgmt has finished setting it up
        # (Invalid Index until then). btmgmt prints nothing when stdin is
        # /dev/null, so give it a pipe.
        until echo | btmgmt --index $i power on 2>&1 | tee -a "$run/btmgmt.log" | grep -q 'Set Powered complete'; do
            tries=$((tries + 1))
            [ $tries -lt 25 ] || return 1
            sleep 0.2
        done
    done
    for i in $(seq 0 "$last"); do
        hciconfig hci$i | grep -q 'UP RUNNING' || return 1
    done
}

# ----------------------------------------------------------------- host side
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
LAB="$ROOT/.lab"

need_root() { [ "$(id -u)" = 0 ] || fail "setup needs root (apt-get, QEMU)"; }

install_packages() {
    local missing=() p
    for p in $APT_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} = 0 ] && return 0
    need_root
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -o DPkg::Lock::Timeout=300 "${missing[@]}" >&2 \
        || { apt-get update -o DPkg::Lock::Timeout=300 >&2 && apt-get install -y -o DPkg::Lock::Timeout=300 "${missing[@]}" >&2; } \
        || fail "apt-get install ${missing[*]} failed"
}

kernel_package() {
    apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}'
}

prepare_kernel() {
    local pkg="$1" kroot="$LAB/kernel/$1"
    if [ ! -e "$kroot/.unpacked" ]; then
        log "downloading $pkg"
        rm -rf "$kroot" "$LAB/download"
        mkdir -p "$LAB/download" "$kroot"
        (cd "$LAB/download" && apt-get download "$pkg" >&2) \
            || { apt-get update -o DPkg::Lock::Timeout=300 >&2 && (cd "$LAB/download" && apt-get download "$pkg" >&2); } \
            || fail "apt-get download $pkg failed"
        dpkg-deb -x "$LAB"/download/"$pkg"_*.deb "$kroot" || fail "dpkg-deb -x failed"
        # Merged-/usr kernels ship usr/lib/modules; give both layouts one path.
        if [ ! -d "$kroot/lib/modules" ] && [ -d "$kroot/usr/lib/modules" ]; then
            mkdir -p "$kroot/lib" && ln -s ../usr/lib/modules "$kroot/lib/modules"
        fi
        local kver
        kver=$(ls "$kroot/lib/modules" | head -n1)
        [ -n "$kver" ] || fail "no modules in $pkg"
        depmod -b "$kroot" "$kver" || fail "depmod failed"
        rm -rf "$LAB/download"
        touch "$kroot/.unpacked"
    fi
    KVER=$(ls "$kroot/lib/modules" | head -n1)
    KROOT="$kroot"
    local bz
    bz=$(ls "$kroot"/boot/vmlinuz-* 2>/dev/null | head -n1)
    [ -n "$bz" ] || fail "no vmlinuz in $pkg"
    if [ ! -s "$kroot/vmlinux" ]; then
        # PVH boots the ELF vmlinux directly, which saves the bzImage's
        # self-decompression under TCG; the payload is the first XZ stream.
        log "extracting vmlinux"
        local off
        off=$(LC_ALL=C grep -obUaP '\xFD7zXZ\x00' "$bz" | head -n1 | cut -d: -f1)
        [ -n "$off" ] || fail "no XZ payload in $bz"
        tail -c +"$((off + 1))" "$bz" | xz -dc --single-stream > "$kroot/vmlinux.tmp" 2>/dev/null
        [ -s "$kroot/vmlinux.tmp" ] || fail "cannot decompress vmlinux"
        mv "$kroot/vmlinux.tmp" "$kroot/vmlinux"
    fi
}

# The initramfs's /init: mounts the host's / read-only and the project read-write, then
# hands over to guest_main.
init_script() {
    cat <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
die() { echo "lab-init: $*"; printf '\001' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null; poweroff -f; }
for m in $(cat /modules/order); do insmod /modules/$m 2>/dev/null; done
run=; project=
for a in $(cat /proc/cmdline); do
  case "$a" in attune.run=*) run=${a#attune.run=};; attune.project=*) project=${a#attune.project=};; esac
done
mount -t 9p -o trans=virtio,version=9p2000.L,cache=loose,msize=512000,ro hostroot /mnt/host || die "9p hostroot"
mount -t tmpfs -o mode=0755 tmpfs /mnt/upper || die tmpfs
mkdir -p /mnt/upper/u /mnt/upper/w
mount -t overlay overlay -o lowerdir=/mnt/host,upperdir=/mnt/upper/u,workdir=/mnt/upper/w /mnt/root || die overlay
# Fresh /tmp and /run first, then the project on top, so a project that lives
# under /tmp stays visible.
mount -t tmpfs -o mode=1777 tmpfs /mnt/root/tmp || die "tmpfs /tmp"
mount -t tmpfs -o mode=0755 tmpfs /mnt/root/run || die "tmpfs /run"
mkdir -p "/mnt/root$project"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 project "/mnt/root$project" || die "9p project"
mount --move /proc /mnt/root/proc
mount --move /sys /mnt/root/sys
mount --move /dev /mnt/root/dev
exec switch_root /mnt/root /bin/bash "$project/Scripts/kernel-lab.sh" --guest "$run"
EOF
}

# What the initramfs is built from; a run compares it with the stamp --setup left, so an
# edited init or module list asks for Scripts/setup.sh again instead of booting stale.
initramfs_stamp() {
    { init_script; echo "$INITRAMFS_MODULES"; echo "$KVER"; } | sha256sum | cut -d' ' -f1
}

build_initramfs() {
    local out="$KROOT/initramfs.cpio.gz" stamp
    stamp=$(initramfs_stamp)
    [ -s "$out" ] && [ "$(cat "$KROOT/initramfs.stamp" 2>/dev/null)" = "$stamp" ] && return 0
    log "building initramfs"
    local tree="$LAB/initramfs.tmp"
    rm -rf "$tree"
    mkdir -p "$tree"/{bin,modules,proc,sys,dev,mnt/host,mnt/upper,mnt/root}
    cp /bin/busybox "$tree/bin/busybox" || fail "busybox-static missing"
    local m path order=()
    for m in $INITRAMFS_MODULES; do
        while read -r _ path; do
            path=${path%% *}
            local name
            name=$(basename "$path")
            name=${name%.xz}; name=${name%.zst}
            [ -e "$tree/modules/$name" ] && continue
            case "$path" in
                *.xz) xz -dc "$path" > "$tree/modules/$name" ;;
                *.zst) zstd -dcq "$path" > "$tree/modules/$name" ;;
                *) cp "$path" "$tree/modules/$name" ;;
            esac
            order+=("$name")
        done < <(modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" | grep '^insmod ')
    done
    printf '%s\n' "${order[@]}" > "$tree/modules/order"
    init_script > "$tree/init"
    chmod +x "$tree/init"
    (cd "$tree" && find . | cpio -o -H newc --quiet | gzip -1 > "$out.tmp") || fail "cpio failed"
    mv "$out.tmp" "$out"
    echo "$stamp" > "$KROOT/initramfs.stamp"
    rm -rf "$tree"
}

setup() {
    mkdir -p "$LAB"
    exec 9>"$LAB/setup.lock"
    flock 9
    install_packages
    # A lab already prepared stays on its kernel: asking apt which kernel is current
    # takes seconds, and a second run of Scripts/setup.sh should not.
    check_prepared
    if [ -z "$UNPREPARED" ]; then flock -u 9; return 0; fi
    local pkg
    pkg=$(kernel_package)
    [ -n "$pkg" ] || { apt-get update -o DPkg::Lock::Timeout=300 >&2; pkg=$(kernel_package); }
    [ -n "$pkg" ] || fail "cannot resolve the package linux-image-amd64 depends on"
    prepare_kernel "$pkg"
    build_initramfs
    # Runs use this kernel without asking apt again.
    echo "$pkg" > "$LAB/kernel/current.tmp" && mv "$LAB/kernel/current.tmp" "$LAB/kernel/current"
    flock -u 9
}

# What a run needs, checked and never made: sets KROOT and KVER to the prepared kernel,
# and UNPREPARED to why the lab cannot run (empty when it can).
check_prepared() {
    UNPREPARED=
    if ! command -v qemu-system-x86_64 >/dev/null; then
        UNPREPARED="qemu-system-x86_64 is not installed"
    elif [ ! -s "$LAB/kernel/current" ]; then
        UNPREPARED="no kernel in $LAB/kernel"
    else
        local pkg
        pkg=$(cat "$LAB/kernel/current")
        KROOT="$LAB/kernel/$pkg"
        KVER=$(ls "$KROOT/lib/modules" 2>/dev/null | head -n1)
        if [ ! -e "$KROOT/.unpacked" ] || [ -z "$KVER" ] || [ ! -s "$KROOT/vmlinux" ]; then
            UNPREPARED="the kernel $pkg in $KROOT is incomplete"
        elif [ ! -s "$KROOT/initramfs.cpio.gz" ]; then
            UNPREPARED="no initramfs in $KROOT"
        elif [ "$(cat "$KROOT/initramfs.stamp" 2>/dev/null)" != "$(initramfs_stamp)" ]; then
            UNPREPARED="the initramfs in $KROOT is older than this script"
        fi
    fi
}

require_prepared() {
    check_prepared
    [ -z "$UNPREPARED" ] || fail "the lab is not prepared ($UNPREPARED): run Scripts/setup.sh (as root) first"
}

accel_args() {
    # A paravirtual KVM (kvm_pvm) hangs a stock kernel, so KVM only with real
    # hardware virtualization.
    if grep -qwE 'vmx|svm' /proc/cpuinfo && [ ! -e /sys/module/kvm_pvm ] && [ -w /dev/kvm ]; then
        echo "-accel kvm -cpu host -smp 2"
    else
        echo "-accel tcg,thread=multi -cpu max -smp 1"
    fi
}

run_in_guest() {
    local timeout="${KERNEL_LAB_TIMEOUT:-120}"
    mkdir -p "$LAB/runs"
    RUN=$(mktemp -d "$LAB/runs/run.XXXXXX") || fail "mktemp failed"
    trap 'cleanup' EXIT
    printf '%q ' "$@" > "$RUN/argv"
    : > "$RUN/stdout"; : > "$RUN/stderr"
    {
        printf 'LAB_KVER=%q\nLAB_KROOT=%q\nLAB_PROJECT=%q\n' "$KVER" "$KROOT" "$ROOT"
        printf 'LAB_COMMAND_TIMEOUT=%q\nLAB_BTMON=%q\nLAB_BLUETOOTHD=%q\nLAB_CONTROLLERS=%q\n' "$timeout" \
            "${KERNEL_LAB_BTMON:-}" "${KERNEL_LAB_BLUETOOTHD:-0}" "${KERNEL_LAB_CONTROLLERS:-2}"
        local v
        for v in $(compgen -e | grep '^ATTUNE_' || true); do printf 'export %s=%q\n' "$v" "${!v}"; done
    } > "$RUN/guest.env"

    # One guest at a time. Guests under TCG each take a whole core; the suite starts
    # several at once (one per suite), and on a two-core machine they starved each other
    # and the host's tests ten times past their limits. A guest waits here for the one
    # before it; its own time limit starts when it boots.
    exec 8>"$LAB/guest.lock"
    flock 8
    local serial="file:$RUN/console.log"
    [ "${KERNEL_LAB_VERBOSE:-0}" = 1 ] && serial=stdio
    # shellcheck disable=SC2046
    timeout --kill-after=5 "$((timeout + 90))" \
        qemu-system-x86_64 -M q35 -nodefaults $(accel_args) -m 2048 \
        -display none -monitor none -no-reboot -serial "$serial" \
        -kernel "$KROOT/vmlinux" -initrd "$KROOT/initramfs.cpio.gz" \
        -append "console=ttyS0 quiet loglevel=3 cryptomgr.notests=1 no_timer_check oops=panic panic=-1 attune.run=$RUN attune.project=$ROOT" \
        -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
        -virtfs "local,path=$ROOT,mount_tag=project,security_model=none,multidevs=remap" \
        -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
        </dev/null >"$RUN/qemu.log" 2>&1 &
    local qemu=$!
    local qrc
    if [ -t 1 ]; then
        # On a terminal, follow the command's output live.
        tail -q -n +1 -s 0.2 --pid=$qemu -f "$RUN/stdout" &
        local t1=$!
        tail -q -n +1 -s 0.2 --pid=$qemu -f "$RUN/stderr" >&2 &
        local t2=$!
        wait "$qemu"
        qrc=$?
        wait "$t1" "$t2" 2>/dev/null
    else
        # Into a pipe or file, copy it whole once the VM is gone, so nothing
        # depends on tail's timing.
        wait "$qemu"
        qrc=$?
        cat "$RUN/stdout"
        cat "$RUN/stderr" >&2
    fi

    if [ -n "${KERNEL_LAB_BTMON:-}" ] && [ -s "$RUN/btmon.snoop" ]; then
        cp "$RUN/btmon.snoop" "$KERNEL_LAB_BTMON" || echo "kernel-lab: cannot write $KERNEL_LAB_BTMON" >&2
    fi
    if [ -s "$RUN/status" ]; then
        local status
        status=$(cat "$RUN/status")
        if [ "$status" = "$LAB_FAILURE" ] && [ ! -e "$RUN/ready" ]; then
            echo "kernel-lab: the guest failed before running the command; console:" >&2
            tail -n 30 "$RUN/console.log" "$RUN/btvirt.log" "$RUN/btmgmt.log" >&2 2>/dev/null
            grep -i -E 'bluetooth|hci|vhci' "$RUN/dmesg.log" >&2 2>/dev/null
        fi
        return "$status"
    fi
    if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
        echo "kernel-lab: the VM timed out" >&2
        return "$LAB_TIMEOUT"
    fi
    echo "kernel-lab: the VM ended without a result (qemu exit $qrc)" >&2
    tail -n 30 "$RUN/console.log" "$RUN/qemu.log" >&2 2>/dev/null
    return "$LAB_FAILURE"
}

cleanup() {
    local rc=$?
    if [ "$rc" = "$LAB_FAILURE" ] && [ -n "${RUN:-}" ]; then
        echo "kernel-lab: kept $RUN for inspection" >&2
    elif [ "${KERNEL_LAB_KEEP:-0}" != 1 ] && [ -n "${RUN:-}" ]; then
        rm -rf "$RUN"
    fi
    exit "$rc"
}

# Whether QEMU can run at all here. Only status 1 may make the test suite skip the
# kernel stage; QEMU not installed (3) means Scripts/setup.sh has not run, and the
# tests then run and fail saying so, as does a lab that fails to boot.
can_run_qemu() {
    command -v qemu-system-x86_64 >/dev/null \
        || { echo "kernel-lab: qemu-system-x86_64 is not installed: run Scripts/setup.sh (as root) first" >&2; return 3; }
    qemu-system-x86_64 -version >/dev/null 2>&1 || { echo "kernel-lab: qemu-system-x86_64 does not run here" >&2; return 1; }
}

case "${1:-}" in
    --guest) shift; guest_main "$@"; exit ;;
    --setup) setup; exit 0 ;;
    --check) can_run_qemu; exit ;;
    ""|-h|--help) sed -n '2,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac

require_prepared
run_in_guest "$@"
