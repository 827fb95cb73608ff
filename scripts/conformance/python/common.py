"""Shared pieces of the Python conformance cases: the server, a speech clip, and byte checks."""

from __future__ import annotations

import io
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import httpx2 as httpx  # the HTTP client the openai SDK itself uses
from openai import OpenAI

ROOT = Path(__file__).resolve().parents[3]
# The real speech clip the repo's tests use (test/fixtures/speech/SOURCES.md); if it is missing,
# speech made by the server's own TTS model.
SPEECH_CLIP = Path(os.environ.get("CONFORMANCE_CLIP", ROOT / "test/fixtures/speech/en_jfk.wav"))

STT_ALIAS = "whisper-1"
STT_MODEL = "whisper-tiny.en"
STT_MULTILINGUAL = "whisper-base-pypi"
TTS_MODEL = "piper-en_US-joe-medium"


class Skip(Exception):
    pass


@dataclass
class Context:
    base_url: str
    api_key: str
    work: Path

    @classmethod
    def from_env(cls) -> "Context":
        return cls(
            base_url=os.environ["CONFORMANCE_BASE_URL"],
            api_key=os.environ["CONFORMANCE_API_KEY"],
            work=Path(os.environ.get("CONFORMANCE_WORK", "/tmp")),
        )

    def openai(self) -> OpenAI:
        return OpenAI(base_url=f"{self.base_url}/v1", api_key=self.api_key, timeout=120, max_retries=0)

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, headers={"Authorization": f"Bearer {self.api_key}"}, timeout=120)

    _clip: Path | None = None

    def audio_wav(self) -> Path:
        """A short English speech clip as a WAV file (speaches' tests call it audio.wav)."""
        if self._clip is None:
            target = self.work / "audio.wav"
            if SPEECH_CLIP.exists():
                target.write_bytes(SPEECH_CLIP.read_bytes())
            else:
                res = self.openai().audio.speech.create(
                    model=TTS_MODEL,
                    voice="alloy",
                    input="And so, my fellow Americans, ask not what your country can do for you.",
                    response_format="wav",
                )
                target.write_bytes(res.content)
            self._clip = target
        return self._clip


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def wav_sample_rate(data: bytes) -> tuple[int, int]:
    """(sample rate, bits per sample) from a RIFF/WAVE header."""
    check(data[:4] == b"RIFF" and data[8:12] == b"WAVE", f"not a WAV file: {data[:12]!r}")
    offset = 12
    while offset + 8 <= len(data):
        chunk, size = data[offset : offset + 4], struct.unpack("<I", data[offset + 4 : offset + 8])[0]
        if chunk == b"fmt ":
            rate = struct.unpack("<I", data[offset + 12 : offset + 16])[0]
            bits = struct.unpack("<H", data[offset + 22 : offset + 24])[0]
            return rate, bits
        offset += 8 + size + (size & 1)
    raise AssertionError("WAV without fmt chunk")


def flac_info(data: bytes) -> tuple[int, int, float]:
    """(sample rate, bits per sample, seconds) from FLAC's STREAMINFO."""
    check(data[:4] == b"fLaC", f"not FLAC: {data[:4]!r}")
    info = data[8:42]
    packed = int.from_bytes(info[10:18], "big")
    rate = packed >> 44
    bits = ((packed >> 36) & 0x1F) + 1
    samples = packed & 0xFFFFFFFFF
    return rate, bits, samples / rate if rate else 0.0


def adts_duration(data: bytes) -> tuple[int, float]:
    """(sample rate, seconds) by walking ADTS frames (1024 samples each)."""
    rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
    offset, frames, rate = 0, 0, 0
    while offset + 7 <= len(data):
        check(data[offset] == 0xFF and (data[offset + 1] & 0xF0) == 0xF0, f"lost ADTS sync at byte {offset}")
        rate = rates[(data[offset + 2] >> 2) & 0x0F]
        length = ((data[offset + 3] & 0x03) << 11) | (data[offset + 4] << 3) | (data[offset + 5] >> 5)
        check(length > 7, "ADTS frame with no payload")
        frames += 1
        offset += length
    check(frames > 0, "no ADTS frames")
    return rate, frames * 1024 / rate


def ogg_opus_info(data: bytes) -> tuple[int, float]:
    """(input sample rate from OpusHead, seconds from the last page's granule position at 48 kHz)."""
    check(data[:4] == b"OggS", f"not Ogg: {data[:4]!r}")
    head = data.find(b"OpusHead")
    check(head >= 0, "Ogg without OpusHead")
    input_rate = struct.unpack("<I", data[head + 12 : head + 16])[0]
    pre_skip = struct.unpack("<H", data[head + 10 : head + 12])[0]
    last = data.rfind(b"OggS")
    granule = struct.unpack("<q", data[last + 6 : last + 14])[0]
    return input_rate, max(0, granule - pre_skip) / 48000


def decoded_seconds(data: bytes, fmt: str, pcm_rate: int = 24000) -> tuple[float, int]:
    """(duration, bit depth) of encoded speech, the way speaches' validate_audio_reconstruction reads it."""
    import soundfile as sf

    if fmt == "pcm":
        check(len(data) > 0 and len(data) % 2 == 0, "PCM body empty or odd length")
        return len(data) / 2 / pcm_rate, 16
    if fmt == "wav":
        rate, bits = wav_sample_rate(data)
        frames, _ = sf.read(io.BytesIO(data), dtype="int16")
        return len(frames) / rate, bits
    if fmt == "flac":
        rate, bits, seconds = flac_info(data)
        return seconds, bits
    if fmt == "mp3":
        frames, rate = sf.read(io.BytesIO(data), dtype="int16")
        check(len(frames) > 0, "MP3 decodes to nothing")
        return len(frames) / rate, 16
    if fmt == "opus":
        _, seconds = ogg_opus_info(data)
        frames, rate = sf.read(io.BytesIO(data), dtype="int16")
        check(len(frames) > 0, "Ogg Opus decodes to nothing")
        return len(frames) / rate, 16
    if fmt == "aac":
        _, seconds = adts_duration(data)
        return seconds, 16
    raise AssertionError(f"unknown format {fmt}")


def sse_events(text: str) -> list[dict]:
    import json

    events = []
    for block in text.strip().split("\n\n"):
        for line in block.split("\n"):
            if line.startswith("data: "):
                payload = line[6:]
                if payload.strip() == "[DONE]":
                    continue
                events.append(json.loads(payload))
    return events
