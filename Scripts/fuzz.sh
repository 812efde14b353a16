#!/usr/bin/env bash
# Scripts/fuzz.sh NAME [SECONDS] [extra libFuzzer args...]
#
# Builds the libFuzzer target Fuzz/NAME.swift with -sanitize=fuzzer,address and runs it.
# The file's header line "// fuzz-modules: A B C" lists the project modules it needs, in
# dependency order; each is compiled from Sources/<module> as its own module so that
# `import` works as in the package. The corpus is seeded from the fixtures.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: Scripts/fuzz.sh NAME [SECONDS]}
seconds=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
src="Fuzz/$name.swift"
[ -f "$src" ] || { echo "no fuzz target $src" >&2; exit 2; }
modules=$(sed -n 's#^// fuzz-modules: ##p' "$src" | head -1)
out=".fuzz/$name"
mkdir -p "$out/modules" "$out/corpus"
# The modules share `package` declarations, as in the package build.
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name Attune -I "$out/modules" -L "$out/modules")
cflags=(-I Sources/CCrypto -I Sources/CBlueZ -I Sources/CYAML -I Sources/CAllocCounter/include)
links=()
for m in $modules; do
    case "$m" in
    CCrypto) links+=(-lcrypto); continue ;;
    CBlueZ) links+=(-lbluetooth); continue ;;
    CYAML) links+=(-lyaml); continue ;;
    esac
    mapfile -t files < <(find "Sources/$m" -name '*.swift' | sort)
    swiftc "${flags[@]}" "${cflags[@]}" -module-name "$m" -emit-module -emit-module-path "$out/modules/$m.swiftmodule" \
        -emit-library -static -o "$out/modules/lib$m.a" "${files[@]}" "${links[@]}"
    links=(-l"$m" "${links[@]}")
done
swiftc "${flags[@]}" "${cflags[@]}" "$src" -o "$out/fuzzer" "${links[@]}"

# Seed corpus: every PDU of the conformance vectors, one file each.
if [ -z "$(ls -A "$out/corpus")" ] && [ -f Fixtures/conformance/gatt-vectors.json ]; then
    python3 - "$out/corpus" <<'PY'
import json, sys, os, struct
v = json.load(open("Fixtures/conformance/gatt-vectors.json"))
seen = set()
for t in v["tests"]:
    for e in t["exchange"]:
        if e["pdu"] not in seen:
            seen.add(e["pdu"])
            open(os.path.join(sys.argv[1], "v%04d" % len(seen)), "wb").write(bytes.fromhex(e["pdu"]))
# pcapng files whose interfaces carry if_tsresol and if_tsoffset (the fixtures are all
# btsnoop): nanoseconds with an offset, 2^-10 s, and whole seconds.
def block(kind, body):
    return struct.pack("<II", kind, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
def option(code, value):
    return struct.pack("<HH", code, len(value)) + value + bytes((4 - len(value) % 4) % 4)
packet = bytes([0, 0, 0, 1, 0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
section = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
for name, options, stamps in [
        ("pcapng-ns-offset", option(9, b"\x09") + option(14, struct.pack("<q", 1600000000)), [5000000001, 6500000000]),
        ("pcapng-pow2", option(9, b"\x8a"), [1024 * 1700000000 + 512, 1024 * 1700000001]),
        ("pcapng-seconds", option(9, b"\x00"), [1700000000, 1700000002])]:
    interface = block(1, struct.pack("<HHI", 201, 0, 0) + options + option(0, b""))
    packets = b"".join(block(6, struct.pack("<IIIII", 0, t >> 32, t & 0xFFFFFFFF, len(packet), len(packet)) + packet + b"\0")
                       for t in stamps)
    open(os.path.join(sys.argv[1], name), "wb").write(section + interface + packets)
PY
    for f in Fixtures/captures/*.btsnoop Fixtures/captures/kernel/*.btsnoop; do cp "$f" "$out/corpus/"; done
fi
"$out/fuzzer" -max_total_time="$seconds" -print_final_stats=1 -max_len=4096 "$@" "$out/corpus"
