"""Baseline for scripts/bench/text-to-speech.ts: the piper-tts Python package (the engine behind
the `piper` CLI) on the same voice files, timed the way the CLI works with `--output-dir`: load
the voice once, then per sentence synthesise and write a 16-bit WAV (here into memory, so disk
speed does not count). ORT uses its default SessionOptions, as the CLI does.

  python piper_bench.py --model voice.onnx

Line protocol, so the caller can interleave our timing and Piper's sentence by sentence (the
machine is shared; interleaving exposes both sides to the same background load):
  stdout first line: {"load_seconds": …, "sample_rate": …}
  then for each line of text on stdin: {"seconds": …, "samples": …}
  A line `@file <path>` synthesises every line of that file as the CLI's `-i <path>` does
  (one voice, line by line, all into one WAV) and answers the same JSON for the whole file.
Needs `pip install piper-tts==1.8.0` in the tools venv.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
import wave

from piper import PiperVoice


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    args = parser.parse_args()

    started = time.perf_counter()
    voice = PiperVoice.load(args.model)
    load_seconds = time.perf_counter() - started

    def speak(text: str) -> int:
        buffer = io.BytesIO()
        with wave.open(buffer, "wb") as wav_file:
            voice.synthesize_wav(text, wav_file)
        return (len(buffer.getvalue()) - 44) // 2

    def speak_file(path: str) -> int:
        buffer = io.BytesIO()
        with wave.open(buffer, "wb") as wav_file, open(path, encoding="utf-8") as lines:
            wav_file.setframerate(voice.config.sample_rate)
            wav_file.setsampwidth(2)
            wav_file.setnchannels(1)
            for line in lines:
                if line.strip():
                    for chunk in voice.synthesize(line.strip()):
                        wav_file.writeframes(chunk.audio_int16_bytes)
        return (len(buffer.getvalue()) - 44) // 2

    speak("Warm up.")
    print(json.dumps({"load_seconds": load_seconds, "sample_rate": voice.config.sample_rate}), flush=True)
    for line in sys.stdin:
        text = line.strip()
        if not text:
            continue
        t = time.perf_counter()
        samples = speak_file(text[len("@file "):]) if text.startswith("@file ") else speak(text)
        print(json.dumps({"seconds": time.perf_counter() - t, "samples": samples}), flush=True)


if __name__ == "__main__":
    main()
