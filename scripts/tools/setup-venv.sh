#!/usr/bin/env bash
# Creates .cache/venv with the pinned Python tools (idempotent). Prints the python path.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$root/.cache/venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$root/scripts/tools/requirements.txt" | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  "$venv/bin/pip" install -q --upgrade pip >&2
  "$venv/bin/pip" install -q torch==2.13.0 >&2
  "$venv/bin/pip" install -q -r "$root/scripts/tools/requirements.txt" >&2
  echo "$want" > "$stamp"
fi
echo "$venv/bin/python"
