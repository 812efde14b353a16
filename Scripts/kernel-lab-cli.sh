#!/bin/bash
# Runs inside the kernel lab (Scripts/kernel-lab.sh): `attune serve` on hci1, and the
# central commands on hci0 against it (state, scan, discover, read, replay --against, subscribe, write), through the kernel's HCI and L2CAP sockets.
# Prints PASS/FAIL per check; exits 1 when any check failed.
#   kernel-lab-cli.sh PATH-TO-attune
set -u
A="$1"
PERIPHERAL=00:AA:01:01:00:01
failed=0
check() {   # check NAME COMMAND...: passes when the command succeeds
    local name="$1"; shift
    if "$@"; then echo "PASS $name"; else echo "FAIL $name"; failed=1; fi
}
out=$(mktemp -d)

"$A" state > "$out/state" 2>&1
check "state is poweredOn" grep -q "^hci0: poweredOn" "$out/state"

"$A" serve Fixtures/databases/heart-rate.json --name Pulse --transport hci1 --seconds 70 --notify 200 --json \
    --snoop "$out/serve.btsnoop" > "$out/serve" 2> "$out/serve.err" &
serve=$!
sleep 2

timeout 20 "$A" scan --transport hci0 --timeout 4 --services 180d --json > "$out/scan" 2> "$out/scan.err"
check "scan finds the peripheral" grep -q "\"address\":\"$PERIPHERAL\".*\"name\":\"Pulse\"" "$out/scan"

timeout 30 "$A" discover "$PERIPHERAL" --transport hci0 > "$out/discover" 2> "$out/discover.err"
check "discover prints the tree" grep -q "characteristic 0x0015  2A38 Body Sensor Location  \[read\]" "$out/discover"

timeout 30 "$A" read "$PERIPHERAL" 2a38 --transport hci0 --snoop "$out/read.btsnoop" > "$out/read" 2> "$out/read.err"
check "read returns the value" grep -qx "01" "$out/read"
# The kernel owns HCI, so --snoop records the link as a controller would have framed it.
"$A" decode "$out/read.btsnoop" > "$out/read.decode" 2>&1
check "read --snoop capture decodes" grep -q "connected to $PERIPHERAL (public) as central" "$out/read.decode"
check "read --snoop capture holds the read" grep -q "sent .*ATT  Read Request handle 0x0015" "$out/read.decode"

# The read's capture replayed against the live peer: a gateway developer's "does it still
# answer as it did?" (the captured central's procedures, run again over the kernel transport).
timeout 40 "$A" replay "$out/read.btsnoop" --as client --against "$PERIPHERAL" --transport hci0 > "$out/against" 2> "$out/against.err"
check "replay --against the live peer exits 0" test "$?" = 0
check "replay --against: the captured read matches the live one" grep -q "^  Read 0x0015: matched (" "$out/against"
check "replay --against: nothing diverged" grep -q "^[0-9]* matched, 0 diverged" "$out/against"

timeout 30 "$A" subscribe "$PERIPHERAL" 2a37 --count 3 --transport hci0 --json > "$out/subscribe" 2> "$out/subscribe.err"
check "subscribe prints three notifications" test "$(grep -c '"uuid":"2A37"' "$out/subscribe")" = 3

timeout 30 "$A" write "$PERIPHERAL" 2a39 01 --transport hci0 > "$out/write" 2> "$out/write.err"
status=$?
check "write needing encryption fails with the ATT error" test "$status" = 1
check "write names the error" grep -q "Insufficient Encryption" "$out/write.err"

kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null
check "serve printed the read request" grep -q '"event":"read".*"value":"01"' "$out/serve"
check "serve notified the subscriber" grep -q '"event":"notified".*"handle":18' "$out/serve"
"$A" decode "$out/serve.btsnoop" > "$out/serve.decode" 2>&1
check "serve --snoop capture holds the read answered" grep -q "sent .*ATT  Read Response" "$out/serve.decode"
check "serve saw the central connect" grep -q '"event":"connected","ms":[0-9]*,"central":"00:AA:01:00:00:00"' "$out/serve"

for f in state scan scan.err discover.err read.err read.decode against against.err serve.decode subscribe subscribe.err write.err serve serve.err; do echo "--- $f"; cat "$out/$f"; done
rm -rf "$out"
[ "$failed" = 0 ] && echo "ALL PASSED"
exit "$failed"
