#!/usr/bin/env bash
# Creates Scripts/interop/.venv with the pinned Bumble release used as the
# independent interop peer. Scripts/setup.sh runs it; the tests never do, so pip
# never runs beside timing-sensitive tests. Safe to run repeatedly: it only
# installs when the pinned version is not already present.
#
#   Scripts/interop/setup.sh           # create or update the venv
#   Scripts/interop/setup.sh --check   # exit 0 when the venv is ready, 3 (and say
#                                      # to run Scripts/setup.sh) when it is not
#
# ATTUNE_INTEROP_VENV names another venv folder (for the test of the --check message).
set -euo pipefail

BUMBLE_VERSION="0.0.236"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${ATTUNE_INTEROP_VENV:-$here/.venv}"

if ! command -v python3 >/dev/null 2>&1; then
    echo "setup.sh: python3 is missing; the Bumble interop harness cannot run" >&2
    exit 2
fi

ready() {
    [ -x "$venv/bin/python" ] && \
        "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('bumble') != '$BUMBLE_VERSION')" 2>/dev/null
}

if [ "${1:-}" = "--check" ]; then
    ready && exit 0
    echo "Bumble $BUMBLE_VERSION is not installed in $venv: run Scripts/setup.sh (as root) before the tests" >&2
    exit 3
fi

ready && exit 0

python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "bumble==$BUMBLE_VERSION"
"$venv/bin/python" -c "import bumble, importlib.metadata as m; print('bumble', m.version('bumble'))"
