#!/usr/bin/env bash
# One-command set-up: install everything into .venv, then run the main job (a household session).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/install.sh"
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
exec "$ROOT/.venv/bin/l3mp" demo "$@"
