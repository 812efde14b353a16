#!/usr/bin/env bash
# Scripts/interop/bench.sh [READS] [WRITES]
# ATT Read latency (median, p99) and Write Without Response throughput of our userland
# host against the Bumble peer, with Bumble's own host measured in the same run.
# Builds attune-bench in release mode: debug builds measure nothing useful.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bash "$here/setup.sh"
(cd "$root" && swift build -c release --product attune-bench >/dev/null)
bin="$(cd "$root" && swift build -c release --show-bin-path)/attune-bench"
exec timeout 600 "$here/.venv/bin/python" "$here/bench.py" "$bin" "${1:-500}" "${2:-2000}"
