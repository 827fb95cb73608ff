#!/usr/bin/env bash
# Installs Silero VAD v6 (snakers4/silero-vad, MIT) as model id silero-vad-v6 into
# $MODELS_DIR/silero-vad-v6: the ONNX file faster-whisper ships and runs for its `vad_filter`
# (faster_whisper/assets/silero_vad_v6.onnx, a sequence graph: input [frames, 64+512], LSTM state
# h/c [1, 1, 128]). Source: the PyPI wheel faster-whisper==1.2.1 (MIT), the version the speech
# bench compares with, so both sides run the same VAD bytes. Wheel and onnx pinned by sha256; the
# wheel is checked against its RECORD and only the onnx is installed (no Python code).
set -euo pipefail
source "$(dirname "$0")/lib/wheel-install.sh"

id="silero-vad-v6"
version="1.2.1"
sha256="79a66ad50688c0b794dd501dc340a736992a6342f7f95e5811be60b5224a26a7"
onnx_sha256="4cbf549b8326f60f80f2536d9eefeb450a9abe83365a098031c89719f1be17d2"

exit_if_installed "$id"
wheel="$(fetch_wheel faster-whisper "$version" "$sha256")"
staging="$(new_staging "$id")"
trap 'rm -rf "$staging"' EXIT
unpack_checked_wheel "$wheel" faster_whisper/assets/ "$staging" silero_vad_v6.onnx
check_sha256 "$staging/silero_vad_v6.onnx" "$onnx_sha256"
finish_install "$id" "$staging" \
  "{\"id\": \"$id\", \"source\": \"pypi:faster-whisper==$version\", \"wheelSha256\": \"$sha256\", \"onnxSha256\": \"$onnx_sha256\", \"installedAt\": \"$(installed_at)\"}"
trap - EXIT
