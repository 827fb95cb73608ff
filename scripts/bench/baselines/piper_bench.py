"""Baseline for scripts/bench/text-to-speech.ts: the piper-tts Python package (the engine behind
the `piper` CLI) on the same voice files and sentences, timed the way the CLI works with
`--output-dir`: load the voice once, then per sentence synthesise and write a 16-bit WAV (here
into memory, so disk speed does not count). ORT uses its default SessionOptions, as the CLI does.

  python piper_bench.py --model voice.onnx --rounds 1 sentences.txt

Prints one JSON object on stdout: load_seconds, per-sentence seconds, total_seconds, audio_seconds.
Needs `pip install piper-tts==1.8.0` in the tools venv.
"""

from __future__ import annotations

import argparse
import io
import json
import time
import wave

from piper import PiperVoice


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("sentences")
    args = parser.parse_args()
    with open(args.sentences, encoding="utf-8") as f:
        sentences = [line.strip() for line in f if line.strip()]

    started = time.perf_counter()
    voice = PiperVoice.load(args.model)
    load_seconds = time.perf_counter() - started

    def speak(text: str) -> int:
        buffer = io.BytesIO()
        with wave.open(buffer, "wb") as wav_file:
            voice.synthesize_wav(text, wav_file)
        return (len(buffer.getvalue()) - 44) // 2

    speak("Warm up.")
    per_sentence = [0.0] * len(sentences)
    samples = 0
    for _ in range(args.rounds):
        for index, text in enumerate(sentences):
            t = time.perf_counter()
            samples += speak(text)
            per_sentence[index] += time.perf_counter() - t
    print(json.dumps({
        "load_seconds": load_seconds,
        "sentences": per_sentence,
        "total_seconds": sum(per_sentence),
        "audio_seconds": samples / voice.config.sample_rate,
    }))


if __name__ == "__main__":
    main()
