#!/usr/bin/env bash
# Create .venv in the checkout and install l3mp with its pinned dependencies (idempotent).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3}"
STAMP="$VENV/.l3mp-install-stamp"
want="$(cat "$ROOT/requirements.txt" "$ROOT/requirements-data.txt" "$ROOT/setup.py" "$ROOT/setup.cfg" | sha256sum | cut -d' ' -f1)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
  exit 0
fi
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "l3mp needs Python >= 3.10")'
[[ -x "$VENV/bin/python" ]] || "$PY" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check --no-input)
"${PIP[@]}" install -q pip==24.3.1
"${PIP[@]}" install -q -r "$ROOT/requirements.txt"
"${PIP[@]}" install -q --no-deps -r "$ROOT/requirements-data.txt"
"${PIP[@]}" install -q --no-deps --no-build-isolation -e "$ROOT"
echo "$want" > "$STAMP"
echo "l3mp installed in $VENV"
