"""Self-check of ct2_whisper_to_hf.py: a random HF Whisper (non-zero biases, so a wrong Q/K/V split
shows) → CTranslate2's own converter in every storage mode → our numpy reader → HF names, compared
with the original weights. float32 must round-trip exactly; quantised modes within their error.

Needs ctranslate2 in the tools venv (`.cache/venv/bin/pip install faster-whisper` brings it).
Run: .cache/venv/bin/python scripts/tools/ct2_whisper_to_hf_roundtrip.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from ctranslate2.converters import TransformersConverter
from transformers import WhisperConfig, WhisperForConditionalGeneration

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ct2_whisper_to_hf import check_attributes, map_weights, read_model_bin  # noqa: E402

FIXTURE = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "models" / "whisper-tiny-random"
# Largest error relative to each tensor's max |value| that a storage mode may introduce.
TOLERANCE = {"float32": 0.0, "float16": 1e-3, "bfloat16": 8e-3, "int16": 1e-3, "int8": 8e-3, "int8_float16": 8e-3}


class Converter(TransformersConverter):
    def load_model(self, model_class, name, **kwargs):
        # ctranslate2 4.8 passes dtype=, which transformers 4.52 does not know yet (torch_dtype=).
        kwargs["torch_dtype"] = kwargs.pop("dtype", None)
        return model_class.from_pretrained(name, **kwargs)


def main() -> None:
    torch.manual_seed(0)
    config = WhisperConfig(vocab_size=51864, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                           decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128)
    model = WhisperForConditionalGeneration(config).eval()
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("bias"):
                param.normal_()
    reference = {k: v.numpy() for k, v in model.state_dict().items() if k != "proj_out.weight"}
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        hf_dir = Path(tmp) / "hf"
        model.save_pretrained(hf_dir)
        for name in ("tokenizer.json", "tokenizer_config.json", "preprocessor_config.json"):
            (hf_dir / name).write_bytes((FIXTURE / name).read_bytes())
        for mode, tolerance in TOLERANCE.items():
            out = Path(tmp) / mode
            Converter(str(hf_dir)).convert(str(out), quantization=mode, force=True)
            spec, revision, variables = read_model_bin(out / "model.bin")
            check_attributes(variables, revision)
            got = map_weights(variables)
            if set(got) != set(reference):
                print(f"{mode}: key mismatch {sorted(set(got) ^ set(reference))[:5]}")
                failures += 1
                continue
            error = max(float(np.abs(got[k] - reference[k]).max() / (np.abs(reference[k]).max() + 1e-12)) for k in got)
            ok = error <= tolerance
            failures += not ok
            print(f"{mode:13} {spec} rev {revision}: {len(got)} tensors, max relative error {error:.2e} "
                  f"(≤ {tolerance:.0e}) {'ok' if ok else 'FAIL'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
