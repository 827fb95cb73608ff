"""The Python `openai` SDK on every audio call and the models API, `libretranslatepy` and
deep-translator on the LibreTranslate routes, and huggingface_hub's InferenceClient on the TEI
routes (/embed, /predict, and TEI's root route and /info).
"""

from __future__ import annotations

from typing import Callable

import httpx2 as httpx
import openai
from deep_translator import LibreTranslator
from huggingface_hub import InferenceClient
from libretranslatepy import LibreTranslateAPI

from common import STT_ALIAS, STT_MULTILINGUAL, TTS_MODEL, Context, Skip, check, flac_info, adts_duration, ogg_opus_info, wav_sample_rate
from realtime_transcription import ServerError, transcribe_live

Case = tuple[str, str, Callable[[], None]]


def cases(ctx: Context) -> list[Case]:
    client = ctx.openai()
    out: list[Case] = []

    def add(suite: str, name: str, fn: Callable[[], None]) -> None:
        out.append((suite, name, fn))

    # --- openai SDK: transcriptions
    def transcribe(fmt: str) -> Callable[[], None]:
        def run() -> None:
            t = client.audio.transcriptions.create(file=ctx.audio_wav(), model=STT_ALIAS, response_format=fmt)
            if fmt == "json":
                check("country" in t.text.lower(), f"text {t.text!r}")
            elif fmt == "verbose_json":
                check(t.language == "english", f"language {t.language!r} (OpenAI names it 'english')")
                check(t.duration > 0, "duration")
                check(t.segments and all(s.end >= s.start for s in t.segments), "segments")
                seg = t.segments[0]
                for field in ("id", "seek", "start", "end", "text", "tokens", "temperature", "avg_logprob", "compression_ratio", "no_speech_prob"):
                    check(getattr(seg, field, None) is not None, f"segment lacks {field}")
            else:
                check(isinstance(t, str) and len(t) > 0, f"{fmt}: expected a str body, got {type(t).__name__}")
                if fmt == "vtt":
                    check(t.startswith("WEBVTT"), "vtt header")
                if fmt == "srt":
                    check(t.lstrip().startswith("1\n"), "srt numbering")

        return run

    for fmt in ("json", "text", "srt", "vtt", "verbose_json"):
        add("openai-py", f"transcriptions[{fmt}]", transcribe(fmt))

    def transcribe_words() -> None:
        t = client.audio.transcriptions.create(file=ctx.audio_wav(), model=STT_ALIAS, response_format="verbose_json", timestamp_granularities=["word", "segment"])
        check(t.words and all(w.end >= w.start for w in t.words), "words")
        check(t.segments, "segments")

    add("openai-py", "transcriptions[verbose_json+word]", transcribe_words)

    def transcribe_stream() -> None:
        kinds = [e.type for e in client.audio.transcriptions.create(file=ctx.audio_wav(), model="gpt-4o-mini-transcribe", stream=True)]
        check("transcript.text.delta" in kinds, f"no delta event: {kinds[:5]}")
        check(kinds[-1] == "transcript.text.done", f"last event {kinds[-1:]!r}")

    add("openai-py", "transcriptions[stream=True]", transcribe_stream)

    def alias_names_model() -> None:
        raw = client.audio.transcriptions.with_raw_response.create(file=ctx.audio_wav(), model=STT_ALIAS, response_format="json")
        body = raw.http_response.json()
        used = body.get("model") or raw.headers.get("x-model")
        check(used is not None and used != STT_ALIAS, f"the answer does not name the installed model used (body keys {sorted(body)}, headers {dict(raw.headers)})")

    add("openai-py", "transcriptions[alias names model used]", alias_names_model)

    # --- openai SDK: translations (to English, multilingual model)
    def translate(fmt: str) -> Callable[[], None]:
        def run() -> None:
            t = client.audio.translations.create(file=ctx.audio_wav(), model=STT_ALIAS, response_format=fmt)
            text = t.text if hasattr(t, "text") else t
            check(isinstance(text, str) and len(text) > 0, "empty translation")

        return run

    for fmt in ("json", "text", "verbose_json", "srt", "vtt"):
        add("openai-py", f"translations[{fmt}]", translate(fmt))

    # --- openai SDK: speech
    checks: dict[str, Callable[[bytes], None]] = {
        "mp3": lambda b: check(b[:3] == b"ID3" or (b[0] == 0xFF and (b[1] & 0xE0) == 0xE0), "not MP3"),
        "wav": lambda b: check(wav_sample_rate(b)[0] > 0, "WAV"),
        "pcm": lambda b: check(len(b) > 1000 and len(b) % 2 == 0, "PCM"),
        "opus": lambda b: check(ogg_opus_info(b)[1] > 0, "Ogg Opus"),
        "flac": lambda b: check(flac_info(b)[2] > 0, "FLAC"),
        "aac": lambda b: check(adts_duration(b)[1] > 0, "AAC"),
    }
    content_types = {"mp3": "audio/mpeg", "wav": "audio/wav", "pcm": "audio/pcm", "opus": "audio/ogg", "flac": "audio/flac", "aac": "audio/aac"}
    for fmt, verify in checks.items():

        def speech(fmt: str = fmt, verify: Callable[[bytes], None] = verify) -> None:
            res = client.audio.speech.create(model="tts-1", voice="alloy", input="The quick brown fox jumps over the lazy dog.", response_format=fmt)
            verify(res.content)
            ctype = res.response.headers.get("content-type", "")
            check(ctype.startswith(content_types[fmt]) or (fmt == "opus" and ctype.startswith("audio/opus")), f"content-type {ctype!r}")

        add("openai-py", f"speech[{fmt}]", speech)

    def speech_default() -> None:
        res = client.audio.speech.create(model="gpt-4o-mini-tts", voice="coral", input="Hello there.")
        checks["mp3"](res.content)

    add("openai-py", "speech[default format, gpt-4o-mini-tts, coral]", speech_default)

    def speech_sse() -> None:
        kinds = []
        with client.audio.speech.with_streaming_response.create(model="tts-1", voice="alloy", input="Hello there.", stream_format="sse") as res:
            for line in res.iter_lines():
                if line.startswith("data: "):
                    import json

                    kinds.append(json.loads(line[6:])["type"])
        check("speech.audio.delta" in kinds and kinds[-1] == "speech.audio.done", f"events {kinds[:3]}…{kinds[-2:]}")

    add("openai-py", "speech[stream_format=sse]", speech_sse)

    def speech_streamed() -> None:
        chunks = 0
        with client.audio.speech.with_streaming_response.create(model="tts-1", voice="alloy", input="One. Two. Three. Four. Five. Six.", response_format="pcm") as res:
            for _ in res.iter_bytes(4096):
                chunks += 1
        check(chunks > 1, "one chunk")

    add("openai-py", "speech[with_streaming_response pcm]", speech_streamed)

    # --- openai SDK: models
    def models_list() -> None:
        page = client.models.list()
        ids = [m.id for m in page.data]
        check(len(ids) > 0, "empty list")
        for m in page.data:
            check(m.object == "model" and isinstance(m.created, int) and isinstance(m.owned_by, str), f"not OpenAI-shaped: {m}")
        check(STT_MULTILINGUAL in ids or "whisper-tiny.en" in ids, f"installed whisper not listed: {ids[:10]}")

    def models_retrieve_alias() -> None:
        m = client.models.retrieve("whisper-1")
        check(m.id == "whisper-1" and m.object == "model", f"{m}")

    def models_missing() -> None:
        try:
            client.models.retrieve("no-such-model")
        except openai.NotFoundError as error:
            check("no-such-model" in str(error), "message does not name the model")
            return
        raise AssertionError("expected 404")

    def unknown_model_transcription() -> None:
        try:
            # A name in no manifest or catalogue (whisper-large-v3 is in the catalogue now: 503 naming its install).
            client.audio.transcriptions.create(file=ctx.audio_wav(), model="whisper-huge-v9")
        except openai.NotFoundError as error:
            text = str(error)
            for not_installed in ("whisper-base'", "whisper-base\"", "whisper-base,"):
                check(not_installed not in text, f"message steers to a model that is not installed: {text[:300]}")
            return
        except openai.BadRequestError:
            return
        raise AssertionError("an unknown model was accepted")

    def wrong_key() -> None:
        bad = openai.OpenAI(base_url=f"{ctx.base_url}/v1", api_key="sk-wrong", max_retries=0)
        try:
            bad.models.list()
        except openai.AuthenticationError as error:
            check(error.request_id is not None or "x-request-id" in error.response.headers, "no request id")
            check(isinstance(error.body, dict) and error.body.get("message"), f"error body {error.body!r}")
            return
        raise AssertionError("a wrong key was accepted")

    add("openai-py", "wrong key → AuthenticationError with message", wrong_key)
    add("openai-py", "models.list", models_list)
    add("openai-py", "models.retrieve[whisper-1]", models_retrieve_alias)
    add("openai-py", "models.retrieve[missing]→404", models_missing)
    add("openai-py", "transcriptions[unknown model]→404", unknown_model_transcription)

    # --- openai SDK: embeddings (OpenAI shape on the sentence-embedding model)
    def embeddings(fmt: str) -> Callable[[], None]:
        def run() -> None:
            res = client.embeddings.create(model="text-embedding-3-small", input=["hello world", "goodbye"], encoding_format=fmt)
            first = res.data[0].embedding
            if fmt == "base64":
                # The SDK hands an explicitly asked base64 string back as it came: float32 LE.
                import base64
                import struct

                raw = base64.b64decode(first)
                first = list(struct.unpack(f"<{len(raw) // 4}f", raw))
            check(len(res.data) == 2 and len(first) == 384, f"{len(res.data)} × {len(first)}")
            check(abs(sum(x * x for x in first) - 1) < 1e-3, "not unit length")
            check(isinstance(res.usage.prompt_tokens, int), "usage")
            check(res.model != "text-embedding-3-small", f"answer names the alias {res.model!r}, not the model used")

        return run

    add("openai-py", "embeddings[float]", embeddings("float"))
    add("openai-py", "embeddings[base64]", embeddings("base64"))

    # --- openai SDK: live transcription, GA Realtime protocol (client.realtime.connect, intent=transcription)
    def realtime(mode: str) -> Callable[[], None]:
        def run() -> None:
            # Speech at 24 kHz, the rate the session takes: the server's own voice, then silence that ends the turn.
            said = client.audio.speech.create(model=TTS_MODEL, voice="alloy", input="Ask not what your country can do for you.", response_format="pcm")
            pcm = said.content + bytes(24_000 * 2 * 3 // 2)
            try:
                result = transcribe_live(ctx.base_url, ctx.api_key, pcm, mode)
            except ServerError as error:
                if error.code == "model_not_installed":
                    raise Skip(f"server VAD needs silero-vad-v6 (npm run test-models): {error}") from error
                raise
            check(result["events"][:2] == ["session.created", "session.updated"], f"events {result['events'][:4]}")
            heard = " ".join(result["transcripts"]).lower()
            check("country" in heard, f"transcripts {result['transcripts']!r}")

        return run

    add("openai-py", "realtime.connect[transcription, manual commit]", realtime("manual"))
    add("openai-py", "realtime.connect[transcription, server_vad]", realtime("server_vad"))

    def embeddings_batch() -> None:
        # LangChain Python's OpenAIEmbeddings sends chunk_size=1000 texts per call.
        texts = [f"Passage {i}: the weather on day {i % 30} was {'sunny' if i % 2 else 'rainy'}." for i in range(1000)]
        res = client.embeddings.create(model="text-embedding-3-small", input=texts)
        check([item.index for item in res.data] == list(range(1000)), "indices out of order")
        check(all(len(item.embedding) == 384 for item in res.data), "widths")

    add("openai-py", "embeddings[1000 inputs]", embeddings_batch)

    # --- a browser page on another origin (the runner sets CORS_ORIGINS=https://app.example)
    http = ctx.http()

    def cors_preflight() -> None:
        res = httpx.options(
            f"{ctx.base_url}/v1/audio/transcriptions",
            headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type"},
        )
        check(res.status_code in (200, 204), f"preflight status {res.status_code} (answered before auth?)")
        check(res.headers.get("access-control-allow-origin") == "https://app.example", f"allow-origin {res.headers.get('access-control-allow-origin')!r}")
        check("authorization" in res.headers.get("access-control-allow-headers", "").lower(), "authorization not allowed")

    def cors_exposed() -> None:
        res = http.get("/v1/models", headers={"Origin": "https://app.example"})
        exposed = res.headers.get("access-control-expose-headers", "").lower()
        check(res.status_code == 200 and "x-request-id" in exposed and "retry-after" in exposed, f"expose {exposed!r}")

    def cors_other_origin() -> None:
        res = http.get("/v1/models", headers={"Origin": "https://evil.example"})
        check("access-control-allow-origin" not in res.headers, "an unlisted origin was allowed")

    def completions_body() -> None:
        try:
            client.completions.create(model="gpt-3.5-turbo-instruct", prompt="Say hello")
        except openai.BadRequestError as error:
            check("transcri" in str(error).lower() or "speech" in str(error).lower(), f"400 does not say what the path is: {error}")
            return
        raise AssertionError("a text-completion body was accepted")

    add("browser+misc", "CORS preflight before auth", cors_preflight)
    add("browser+misc", "CORS exposes X-Request-Id, Retry-After", cors_exposed)
    add("browser+misc", "CORS refuses an unlisted origin", cors_other_origin)
    add("browser+misc", "/v1/completions text body → 400 naming the path", completions_body)

    # --- libretranslatepy
    lt = LibreTranslateAPI(f"{ctx.base_url}/", api_key=ctx.api_key)

    def lt_translate() -> None:
        text = lt.translate("Hello, how are you?", "en", "es")
        check(isinstance(text, str) and text and text != "Hello, how are you?", f"{text!r}")

    def lt_translate_auto() -> None:
        text = lt.translate("The weather is very nice today and I am going to the beach with my friends.", "auto", "es")
        check(isinstance(text, str) and text, f"{text!r}")

    def lt_languages() -> None:
        langs = lt.languages()
        check(isinstance(langs, list) and any(lang["code"] == "en" and "es" in lang["targets"] for lang in langs), f"{langs!r}"[:300])
        for lang in langs:
            check(set(lang) >= {"code", "name", "targets"}, f"{lang}")

    def lt_detect() -> None:
        res = lt.detect("Bonjour, je voudrais une tasse de café, s'il vous plaît.")
        check(isinstance(res, list) and res[0]["language"] == "fr" and res[0]["confidence"] > 0, f"{res!r}")

    def lt_bad_key() -> None:
        bad = LibreTranslateAPI(f"{ctx.base_url}/", api_key="wrong")
        try:
            bad.translate("Hello", "en", "es")
        except Exception as error:  # noqa: BLE001 - libretranslatepy raises a plain Exception with the server's error text
            check("key" in str(error).lower() or "403" in str(error), f"{error}")
            return
        raise AssertionError("a wrong key was accepted")

    add("libretranslatepy", "translate[en→es]", lt_translate)
    add("libretranslatepy", "translate[auto→es]", lt_translate_auto)
    # (libretranslatepy url-encodes q, so it cannot send an array; the npm client's array case covers it.)
    add("libretranslatepy", "languages", lt_languages)
    add("libretranslatepy", "detect", lt_detect)
    add("libretranslatepy", "translate[wrong key]→error", lt_bad_key)

    # --- deep-translator: every value in the query string of a body-less POST /translate
    def dt_translate() -> None:
        text = LibreTranslator(source="en", target="es", api_key=ctx.api_key, custom_url=f"{ctx.base_url}/").translate("Hello, how are you?")
        check(isinstance(text, str) and text and text != "Hello, how are you?", f"{text!r}")

    def dt_batch() -> None:
        texts = LibreTranslator(source="en", target="es", api_key=ctx.api_key, custom_url=f"{ctx.base_url}/").translate_batch(["Good morning", "Thank you"])
        check(len(texts) == 2 and all(isinstance(t, str) and t for t in texts), f"{texts!r}")

    add("deep-translator", "LibreTranslator.translate[en→es]", dt_translate)
    add("deep-translator", "LibreTranslator.translate_batch", dt_batch)

    # --- huggingface_hub InferenceClient on the TEI routes
    embed = InferenceClient(model=f"{ctx.base_url}/embed", token=ctx.api_key, timeout=60)
    predict = InferenceClient(model=f"{ctx.base_url}/predict", token=ctx.api_key, timeout=60)

    def hf_feature_extraction() -> None:
        vector = embed.feature_extraction("Today is a sunny day and I will get some ice cream.")
        check(vector.shape[-1] == 384, f"shape {vector.shape}")

    def hf_feature_extraction_normalize() -> None:
        vector = embed.feature_extraction("Today is a sunny day.", normalize=True, truncate=True)
        norm = float((vector.reshape(-1) ** 2).sum()) ** 0.5
        check(abs(norm - 1) < 1e-3, f"norm {norm}")

    def hf_text_classification() -> None:
        labels = predict.text_classification("I like you. I love you")
        check(len(labels) > 0 and labels[0].label in ("positive", "negative", "POSITIVE", "NEGATIVE"), f"{labels}")
        check(labels[0].label.lower() == "positive", f"{labels}")
        check(abs(sum(item.score for item in labels) - 1) < 1e-3 or len(labels) == 1, f"scores {labels}")

    def hf_text_classification_top_k() -> None:
        labels = predict.text_classification("What a terrible, boring film.", top_k=1)
        check(len(labels) == 1 and labels[0].label.lower() == "negative", f"{labels}")

    add("huggingface_hub", "feature_extraction", hf_feature_extraction)
    add("huggingface_hub", "feature_extraction[normalize]", hf_feature_extraction_normalize)
    add("huggingface_hub", "text_classification", hf_text_classification)
    add("huggingface_hub", "text_classification[top_k=1]", hf_text_classification_top_k)

    # InferenceClient(model=<root URL>): TEI's own root route, embed or predict by the model served.
    root = InferenceClient(model=ctx.base_url, token=ctx.api_key, timeout=60)

    def hf_root_feature_extraction() -> None:
        vector = root.feature_extraction("Today is a sunny day and I will get some ice cream.")
        check(vector.shape[-1] == 384, f"shape {vector.shape}")

    def hf_root_text_classification() -> None:
        labels = InferenceClient(model=f"{ctx.base_url}/?model=minilm-sentiment", token=ctx.api_key, timeout=60).text_classification("I like you. I love you")
        check(labels and labels[0].label.lower() == "positive", f"{labels}")

    # get_endpoint_info() and health_check() refuse any provider but hf-inference, which a URL model implies for the other calls.
    endpoint = InferenceClient(model=ctx.base_url, token=ctx.api_key, timeout=60, provider="hf-inference")

    def hf_endpoint_info() -> None:
        info = endpoint.get_endpoint_info()
        check(info.get("model_type", {}).get("embedding") is not None, f"{info}")
        check(isinstance(info.get("max_input_length"), int) and info["max_input_length"] > 0, f"{info}")

    add("huggingface_hub", "feature_extraction[root url]", hf_root_feature_extraction)
    add("huggingface_hub", "text_classification[root url, classifier served]", hf_root_text_classification)
    add("huggingface_hub", "get_endpoint_info", hf_endpoint_info)
    add("huggingface_hub", "health_check", lambda: check(endpoint.health_check(), "health_check() is False"))

    return out
