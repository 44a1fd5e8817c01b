#!/usr/bin/env bash
# One-command test run: install if needed, lint, then the whole test suite.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/install.sh"
cd "$ROOT"
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
.venv/bin/ruff check .
# pytest exits 5 when it collects no test: that is a failure too (set -e stops on any non-zero).
exec .venv/bin/python -m pytest "$@"
