#!/bin/bash
# Runs inside the kernel lab (Scripts/kernel-lab.sh, KERNEL_LAB_CONTROLLERS=4): one
# `attune serve` on hci1 taking `attune subscribe` centrals on hci0, hci2 and hci3,
# each after the last one left, through new accepted L2CAP sockets. Prints PASS/FAIL
# per check and CONNECT NAME MS per central; exits 1 when any check failed.
#   kernel-lab-centrals.sh PATH-TO-attune
# ATTUNE_LAB_OUT=DIR keeps every command's output there (a folder the host sees), for
# a run that timed out before it printed them.
set -u
A="$1"
# btvirt numbers its controllers' addresses in creation order, not by index.
address_of() { hciconfig "$1" | awk '/BD Address/ {print $3}'; }
PERIPHERAL=$(address_of hci1)
for i in 0 1 2 3; do echo "hci$i $(address_of hci$i)"; done
failed=0
check() {   # check NAME COMMAND...: passes when the command succeeds
    local name="$1"; shift
    if "$@"; then echo "PASS $name"; else echo "FAIL $name"; failed=1; fi
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# stamp FILE: each stderr line of a command, prefixed with the ms it arrived at.
stamp() { while IFS= read -r line; do echo "$(now_ms) $line"; done > "$1"; }
# waitfor FILE PATTERN SECONDS: until PATTERN is in FILE.
waitfor() {
    local i
    for i in $(seq 1 $(( $3 * 10 ))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    return 1
}
out=${ATTUNE_LAB_OUT:-$(mktemp -d)}; mkdir -p "$out"; fifos=$(mktemp -d)

"$A" serve Fixtures/databases/heart-rate.json --name Pulse --transport hci1 --seconds 300 --notify 100 --json \
    > "$out/serve" 2> "$out/serve.err" &
serve=$!
waitfor "$out/serve.err" "serving" 20

# subscribe N COUNT: a central on hciN that takes COUNT notifications.
# (A FIFO, not process substitution: the guest has no /dev/fd.)
subscribe() {
    rm -f "$fifos/sub$1.fifo"; mkfifo "$fifos/sub$1.fifo"
    stamp "$out/sub$1.err" < "$fifos/sub$1.fifo" &
    timeout 60 "$A" subscribe "$PERIPHERAL" 2a37 --count "$2" --transport "hci$1" --json \
        > "$out/sub$1" 2> "$fifos/sub$1.fifo" &
    eval "sub$1=\$!"
}
# One after another: btvirt's emulated controller gives every connection of hci1 the
# same handle (0x002a), so two centrals at once get each other's ACL data there. What
# the kernel lab can prove is that serve takes a new central after each one leaves:
# advertising resumes at each disconnection, through new accepted sockets.
left=0
for i in 0 2 3; do
    subscribe "$i" 5
    eval "pid=\$sub$i"
    wait "$pid"; status=$?
    check "central hci$i got 5 notifications" test "$status" = 0 -a "$(grep -c '"uuid":"2A37"' "$out/sub$i")" = 5
    # Until serve has seen this central leave too.
    left=$((left + 1))
    seen=0
    for t in $(seq 1 600); do
        [ "$(grep -c '"event":"disconnected"' "$out/serve")" -ge "$left" ] && { seen=1; break; }
        sleep 0.1
    done
    if [ "$seen" = 0 ]; then
        # Say what serve saw, so a central that never left shows in the test's output.
        echo "INFO serve did not see central hci$i leave; its events so far:"
        grep -v '"notified"' "$out/serve"; echo "--- sub$i.err"; cat "$out/sub$i.err"
    fi
done
check "serve saw three connections" test "$(grep -c '"event":"connected"' "$out/serve")" = 3
check "serve saw three disconnections" test "$(grep -c '"event":"disconnected"' "$out/serve")" = 3
check "serve served three different centrals" test "$(grep '"event":"connected"' "$out/serve" | grep -o '"central":"[^"]*"' | sort -u | wc -l)" = 3

kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null
for f in sub0 sub2 sub3; do
    start=$(grep -m1 "connecting to" "$out/$f.err" | cut -d' ' -f1)
    done_at=$(grep -m1 "connected, ATT_MTU" "$out/$f.err" | cut -d' ' -f1)
    [ -n "$start" ] && [ -n "$done_at" ] && echo "CONNECT $f $((done_at - start))"
done
grep -v '"notified"' "$out/serve"
for f in serve.err sub0.err sub2.err sub3.err; do echo "--- $f"; cat "$out/$f"; done
rm -rf "$out"
[ "$failed" = 0 ] && echo "ALL PASSED"
exit "$failed"
