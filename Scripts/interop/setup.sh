#!/usr/bin/env bash
# Creates Scripts/interop/.venv with the pinned Bumble release used as the
# independent interop peer. Safe to run repeatedly: it only installs when the
# pinned version is not already present.
set -euo pipefail

BUMBLE_VERSION="0.0.236"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"

if ! command -v python3 >/dev/null 2>&1; then
    echo "setup.sh: python3 is missing; the Bumble interop harness cannot run" >&2
    exit 2
fi

if [ -x "$venv/bin/python" ] && \
   "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('bumble') != '$BUMBLE_VERSION')" 2>/dev/null; then
    exit 0
fi

python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "bumble==$BUMBLE_VERSION"
"$venv/bin/python" -c "import bumble, importlib.metadata as m; print('bumble', m.version('bumble'))"
