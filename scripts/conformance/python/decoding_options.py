"""Whisper's decoding options through the official Python `openai` SDK, as an app would send them:
`prompt`, `temperature` and `include=["logprobs"]` are the SDK's own parameters; faster-whisper's
options travel in `extra_body`, as the SDK documents for fields it does not know.

Run by `npm test` (test/http/decoding-options.test.ts) as a script:

    python decoding_options.py <base_url> <api_key> <audio-file> <model> <prompt>

and prints one JSON line: the text without and with the prompt, with hotwords, with a beam
search (beam_size 5, patience) and with beam_size 1, the log probabilities and usage of a json
answer, and the status and message of a bad temperature and of a beam search over the cost cap.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from openai import BadRequestError, OpenAI


def run(base_url: str, api_key: str, audio_path: str, model: str, prompt: str) -> dict[str, Any]:
    client = OpenAI(base_url=f"{base_url}/v1", api_key=api_key, max_retries=0)

    def transcribe(**options: Any) -> Any:
        with open(audio_path, "rb") as audio:
            return client.audio.transcriptions.create(model=model, file=audio, **options)

    plain = transcribe(temperature=0)
    prompted = transcribe(prompt=prompt, temperature=0)
    hot = transcribe(extra_body={"hotwords": prompt, "log_prob_threshold": -1.5, "condition_on_previous_text": "false"})
    logprobs = transcribe(prompt=prompt, include=["logprobs"], response_format="json")
    beam = transcribe(prompt=prompt, temperature=0, extra_body={"beam_size": 5, "patience": 1.5, "length_penalty": 0.5})
    beam_one = transcribe(temperature=0, extra_body={"beam_size": 1})

    def status(**options: Any) -> dict[str, Any]:
        try:
            transcribe(**options)
            return {"status": 200}
        except BadRequestError as error:
            return {"status": error.status_code, "message": str(error)}

    return {
        "plain": plain.text,
        "prompted": prompted.text,
        "hotwords": hot.text,
        "logprobs": [entry.model_dump() for entry in logprobs.logprobs or []],
        "usage": logprobs.usage.model_dump() if logprobs.usage else None,
        "beam": beam.text,
        "beam_one": beam_one.text,
        "bad_temperature": status(temperature=1.5),
        "bad_beam": status(extra_body={"beam_size": 6, "best_of": 5}),
    }


if __name__ == "__main__":
    base_url, api_key, audio_path, model, prompt = sys.argv[1:6]
    print(json.dumps(run(base_url, api_key, audio_path, model, prompt)))
