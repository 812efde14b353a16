#!/bin/bash
# Runs inside the kernel lab (Scripts/kernel-lab.sh): `attune gateway` on hci0 over the
# kernel transport against `attune serve` on hci1, publishing to Debian's mosquitto
# running in the guest on 127.0.0.1 (the Raspberry Pi set-up: BlueZ's kernel, a local broker).
# The guest's root is the host's, read-only over 9p with a tmpfs on top, so
# /usr/sbin/mosquitto, mosquitto_sub and mosquitto_pub and their libraries come from the
# host as they are (Scripts/setup.sh installs them).
# Prints PASS/FAIL per check; exits 1 when any check failed.
#   kernel-lab-gateway.sh PATH-TO-attune
set -u
A="$1"
PERIPHERAL=00:AA:01:01:00:01
PORT=18830
failed=0
check() {   # check NAME COMMAND...: passes when the command succeeds
    local name="$1"; shift
    if "$@"; then echo "PASS $name"; else echo "FAIL $name"; failed=1; fi
}
wait_for() {   # wait_for FILE PATTERN SECONDS: until grep finds PATTERN in FILE
    local file="$1" pattern="$2" deadline=$((SECONDS + $3))
    until grep -q -- "$pattern" "$file" 2>/dev/null; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.2
    done
}
out=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

# The guest has no network set up; the broker and its clients need loopback.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
check "mosquitto is in the guest" test -x /usr/sbin/mosquitto -a -x /usr/bin/mosquitto_sub -a -x /usr/bin/mosquitto_pub
cat > "$out/mosquitto.conf" <<EOF
listener $PORT 127.0.0.1
allow_anonymous true
persistence false
user root
log_dest file $out/mosquitto.log
EOF
/usr/sbin/mosquitto -c "$out/mosquitto.conf" 2> "$out/mosquitto.err" &
pids+=($!)
for _ in $(seq 1 150); do (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.2; done
check "mosquitto listens in the guest" bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT"

# The served device: heart rate notifies, battery reads, a control point written without
# encryption (the fixture's needs an encrypted link).
cat > "$out/db.json" <<EOF
{"services": [
  {"uuid": "180d", "characteristics": [
    {"uuid": "2a37", "properties": ["notify"], "value_hex": "0048"},
    {"uuid": "2a39", "properties": ["write"]}]},
  {"uuid": "180f", "characteristics": [{"uuid": "2a19", "properties": ["read"], "value_hex": "5a"}]}]}
EOF
"$A" serve "$out/db.json" --name Pulse --transport hci1 --seconds 300 --notify 200 --json > "$out/serve" 2> "$out/serve.err" &
pids+=($!)

# Everything the gateway publishes, as topic and payload, from before it starts.
mosquitto_sub -h 127.0.0.1 -p $PORT -q 1 -v -t 'attune/#' > "$out/sub" 2> "$out/sub.err" &
pids+=($!)

cat > "$out/gateway.yaml" <<EOF
mqtt: {url: "mqtt://127.0.0.1:$PORT", client_id: kernel-lab}
adapters: [{transport: hci0, max_connections: 2}]
devices:
  - name: pulse
    address: "$PERIPHERAL"
    address_type: public
    connect: keep
    gatt:
      - {characteristic: "2a37", notify: true, topic: heart_rate, decode: heart_rate_measurement}
      - {characteristic: "2a19", read: true, topic: battery, decode: battery_level}
      - {characteristic: "2a39", write: true, topic: control, decode: hex}
EOF
"$A" gateway "$out/gateway.yaml" --check > "$out/check" 2>&1
check "gateway --check accepts the config" grep -q "subscribe 2a37 (notify) -> attune/dev/pulse/heart_rate" "$out/check"

"$A" gateway "$out/gateway.yaml" > "$out/gateway" 2> "$out/gateway.err" &
gateway=$!
wait_for "$out/sub" "^attune/gateway/kernel-lab/status online" 60
check "the gateway says online" test $? = 0
wait_for "$out/sub" "^attune/dev/pulse/availability online" 120
check "the device is online over hci0" test $? = 0
wait_for "$out/sub" '^attune/dev/pulse/heart_rate {"value": [0-9]*, "unit": "bpm"' 60
check "notified values arrive through mosquitto" test $? = 0
wait_for "$out/sub" '^attune/dev/pulse/battery {"value": 90, "unit": "%"' 30
check "the read value is published" test $? = 0

mosquitto_pub -h 127.0.0.1 -p $PORT -q 1 -t attune/dev/pulse/control/set -m 0a0b0c
wait_for "$out/sub" '^attune/dev/pulse/control/result {"ok": true, "hex": "0a0b0c"' 30
check "set: the result says ok" test $? = 0
check "set: serve saw the bytes written" grep -q '"event":"write".*"value":"0a0b0c"' "$out/serve"

timeout 30 "$A" gateway "$out/gateway.yaml" --explain pulse > "$out/explain" 2> "$out/explain.err"
check "--explain shows the live link" grep -q '"connected": true' "$out/explain"

kill -TERM "$gateway"
wait "$gateway"
status=$?
check "SIGTERM exits 143" test "$status" = 143
wait_for "$out/sub" "^attune/dev/pulse/availability offline" 20
check "SIGTERM published the device offline" test $? = 0
wait_for "$out/sub" "^attune/gateway/kernel-lab/status offline" 20
check "SIGTERM published the gateway offline" test $? = 0

cleanup
for f in check gateway.err sub serve serve.err explain explain.err mosquitto.log; do echo "--- $f"; cat "$out/$f"; done
rm -rf "$out"
[ "$failed" = 0 ] && echo "ALL PASSED"
exit "$failed"
