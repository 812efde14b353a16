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
import json, sys, os
v = json.load(open("Fixtures/conformance/gatt-vectors.json"))
seen = set()
for t in v["tests"]:
    for e in t["exchange"]:
        if e["pdu"] not in seen:
            seen.add(e["pdu"])
            open(os.path.join(sys.argv[1], "v%04d" % len(seen)), "wb").write(bytes.fromhex(e["pdu"]))
PY
    for f in Fixtures/captures/*.btsnoop Fixtures/captures/kernel/*.btsnoop; do cp "$f" "$out/corpus/"; done
fi
"$out/fuzzer" -max_total_time="$seconds" -print_final_stats=1 -max_len=4096 "$@" "$out/corpus"
