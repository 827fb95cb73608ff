"""Live transcription with the official Python `openai` SDK in the GA Realtime protocol, as its
docs show it: `client.realtime.connect(...)` with `intent=transcription`, a `session.update` of
type `transcription`, audio appended in 100-ms events, and the turn committed by hand or cut by
server VAD.

Used by the conformance suite (cases_clients.py) and by `npm test`
(test/http/realtime-sdk.test.ts), which runs it as a script:

    python realtime_transcription.py <base_url> <api_key> <pcm16-24k-file> <manual|server_vad>

and reads the one JSON line it prints: the types of the events received, in order, and the
transcripts of the completed turns.
"""

from __future__ import annotations

import base64
import json
import signal
import sys
from typing import Any

from openai import OpenAI

CHUNK_BYTES = 4_800  # 100 ms of 24-kHz PCM16
DEADLINE_SECONDS = 120


class ServerError(Exception):
    """An `error` event: its code and message."""

    def __init__(self, error: Any) -> None:
        self.code = getattr(error, "code", None)
        super().__init__(f"{self.code}: {getattr(error, 'message', error)}")


def transcribe_live(base_url: str, api_key: str, pcm: bytes, mode: str, model: str = "whisper-1") -> dict[str, Any]:
    """Streams `pcm` (24-kHz PCM16) through a GA transcription session; returns the events seen and the transcripts."""
    ws_base = base_url.replace("http://", "ws://", 1).replace("https://", "wss://", 1)
    client = OpenAI(base_url=f"{base_url}/v1", websocket_base_url=f"{ws_base}/v1", api_key=api_key, max_retries=0)
    turn_detection = None if mode == "manual" else {"type": "server_vad", "silence_duration_ms": 500}
    with client.realtime.connect(extra_query={"intent": "transcription"}) as connection:
        received = Received(connection)
        connection.session.update(
            session={
                "type": "transcription",
                "audio": {
                    "input": {
                        "format": {"type": "audio/pcm", "rate": 24000},
                        "transcription": {"model": model, "language": "en"},
                        "turn_detection": turn_detection,
                    }
                },
            }
        )
        received.until("session.updated")
        for at in range(0, len(pcm), CHUNK_BYTES):
            connection.input_audio_buffer.append(audio=base64.b64encode(pcm[at : at + CHUNK_BYTES]).decode("ascii"))
        if mode == "manual":
            connection.input_audio_buffer.commit()
            turns = 1
        else:
            # Events are handled in order: once the clear is answered, VAD has cut every turn of the audio.
            connection.input_audio_buffer.clear()
            received.until("input_audio_buffer.cleared")
            turns = received.types.count("input_audio_buffer.speech_stopped")
        while len(received.transcripts) < turns:
            received.until("conversation.item.input_audio_transcription.completed")
    return {"events": received.types, "transcripts": received.transcripts}


class Received:
    """Every event of a connection, in order, and the transcripts of its completed turns."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.types: list[str] = []
        self.transcripts: list[str] = []

    def until(self, event_type: str) -> None:
        for event in self.connection:
            self.types.append(event.type)
            if event.type == "error":
                raise ServerError(event.error)
            if event.type == "conversation.item.input_audio_transcription.completed":
                self.transcripts.append(event.transcript)
            if event.type == event_type:
                return
        raise AssertionError(f"the session closed before {event_type}; events: {self.types}")


def main() -> int:
    base_url, api_key, pcm_file, mode = sys.argv[1:5]
    # A session that stalls must not hang the test that runs this.
    signal.alarm(DEADLINE_SECONDS)
    with open(pcm_file, "rb") as source:
        pcm = source.read()
    try:
        result = transcribe_live(base_url, api_key, pcm, mode)
    except ServerError as error:
        result = {"error": {"code": error.code, "message": str(error)}}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
