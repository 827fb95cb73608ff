"""The Files + Batch API checked from outside, as a held-out check would: the `openai` SDK against
the real server (its own process, SQLite, the real MiniLM and whisper-tiny.en), one PASS/FAIL
line per check. It starts (and kill -9s, and restarts) the server itself.

    "$(bash scripts/tools/setup-venv.sh)" scripts/conformance/batch_check.py [--lines 2000] [--results out.jsonl]

`npm run conformance` runs it as the `batch` suite (--results: one JSON line per check).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from openai import BadRequestError, NotFoundError

sys.path.insert(0, str(Path(__file__).parent / "python"))

from batch_support import (  # noqa: E402
    EMBED_MODEL,
    FINAL,
    SPEECH,
    STT_MODEL,
    Checks,
    Failed,
    Server,
    check,
    embedding_lines,
    expect_each_once,
    expect_times,
    expect_vectors,
    jsonl,
    load,
    settle,
    start_batch,
    sync_vectors,
    wait,
)


def main() -> int:
    parser = ArgumentParser()
    parser.add_argument("--lines", type=int, default=2000, help="lines of the big embeddings batch")
    parser.add_argument("--results", type=Path, help="also write one JSON line per check here")
    parser.add_argument("--no-probes", action="store_true", help="no synchronous requests during the big batch (its time alone)")
    args = parser.parse_args()
    checks = Checks(args.results)
    work = Path(tempfile.mkdtemp(prefix="batch-check-"))
    server = Server(work, "batch-check-admin-0123456789abcdef")
    try:
        owner_key, other_key = server.key("owner"), server.key("other")
        server.start()
        run_checks(checks, server, owner_key, other_key, args.lines, not args.no_probes)
    finally:
        server.stop()
        if os.environ.get("BATCH_CHECK_KEEP"):
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    failed = [row for row in checks.rows if not row["ok"]]
    print(f"\n{len(checks.rows) - len(failed)} of {len(checks.rows)} checks passed")
    return 1 if failed else 0


def run_checks(checks: Checks, server: Server, owner_key: str, other_key: str, count: int, probes: bool) -> None:
    owner, other = server.client(owner_key), server.client(other_key)
    state: dict[str, Any] = {}

    def big_batch() -> str:
        probe = embedding_lines("probe", 1)[0]["body"]["input"]
        sync_vectors(owner, [probe])  # the model loaded before anything is timed

        def one() -> float:
            start = time.perf_counter()
            owner.embeddings.create(model=EMBED_MODEL, input=probe)
            return time.perf_counter() - start

        idle = statistics.median(one() for _ in range(21))
        lines = embedding_lines("line", count)
        before = time.time()
        started = time.perf_counter()
        batch = start_batch(owner, lines)
        after = time.time()
        check(batch.status == "validating" and batch.request_counts is not None, f"created as {batch.status}")
        # Most probes follow each other (the runner then keeps one line in flight); every fourth
        # comes after a quiet 1.5 s, into the batch at its full concurrency.
        busy: list[float] = []
        lone: list[float] = []
        seen_running = None
        last_done = 0
        while True:
            current = owner.batches.retrieve(batch.id)
            if current.status in FINAL:
                break
            if current.status == "in_progress":
                seen_running = seen_running or current
                counts = current.request_counts
                check(counts.total == count, f"request_counts.total {counts.total} while running")
                check(counts.completed >= last_done, f"request_counts.completed went back: {last_done} → {counts.completed}")
                last_done = counts.completed
                if probes and counts.completed < count:
                    sent = len(busy) + len(lone)
                    (lone if sent % 4 == 0 else busy).append(one())
                    time.sleep(1.5 if sent % 4 == 3 else 0.2)
                    continue
            time.sleep(0.2)
        seconds = time.perf_counter() - started
        check(seen_running is not None and seen_running.in_progress_at is not None, "never seen in_progress with in_progress_at")
        check(current.status == "completed", f"ended {current.status}: {current.errors}")
        check(current.request_counts.model_dump() == {"total": count, "completed": count, "failed": 0}, f"request_counts {current.request_counts}")
        expect_times(current, before, after, "completed", ("finalizing_at",))
        check(current.error_file_id is None, "an error file for a batch without errors")
        output = jsonl(owner, current.output_file_id)
        check(len(output) == count, f"{len(output)} output lines for {count}")
        expect_each_once(output, [line["custom_id"] for line in lines], "output")
        expect_vectors(owner, output, lines, "output")
        state.update(batch=current, idle=idle, busy=busy, lone=lone, seconds=seconds)
        return f"{count} lines in {seconds:.1f} s ({count / seconds:.0f} lines/s), load {load()}"

    def latency() -> str:
        check("busy" in state, "the big batch did not run")
        idle, every = state["idle"], state["busy"] + state["lone"]
        check(len(state["busy"]) >= 3 and len(state["lone"]) >= 1, f"only {len(every)} synchronous requests while the batch ran")

        def figures(times: list[float]) -> str:
            median = statistics.median(times)
            return f"median {median * 1000:.1f} ms ({median / idle:.2f}x), max {max(times) * 1000:.1f} ms ({max(times) / idle:.2f}x), n={len(times)}"

        note = f"idle median {idle * 1000:.1f} ms; during the batch {figures(every)}; after a quiet 1.5 s {figures(state['lone'])}; load {load()}"
        check(statistics.median(every) <= 3 * idle and statistics.median(state["lone"]) <= 3 * idle, note)
        return note

    def bad_lines() -> None:
        good = embedding_lines("good", 5)
        bad = [
            {"custom_id": "no-model", "method": "POST", "url": "/v1/embeddings", "body": {"model": "no-such-model", "input": "x"}},
            {"custom_id": "empty-input", "method": "POST", "url": "/v1/embeddings", "body": {"model": EMBED_MODEL, "input": ""}},
            {"custom_id": "wrong-url", "method": "POST", "url": "/v1/classifications", "body": {"model": EMBED_MODEL, "query": "x"}},
            {"custom_id": "get", "method": "GET", "url": "/v1/embeddings", "body": {"model": EMBED_MODEL, "input": "x"}},
        ]
        lines = good[:2] + bad[:2] + good[2:] + bad[2:]
        batch = settle(owner, start_batch(owner, lines).id)
        check(batch.status == "completed", f"ended {batch.status}: {batch.errors}")
        check(batch.request_counts.model_dump() == {"total": 9, "completed": 5, "failed": 4}, f"request_counts {batch.request_counts}")
        output, errors = jsonl(owner, batch.output_file_id), jsonl(owner, batch.error_file_id)
        check([line["custom_id"] for line in output] == [line["custom_id"] for line in good], f"output {[line['custom_id'] for line in output]}")
        expect_vectors(owner, output, good, "output")
        check(sorted(line["custom_id"] for line in errors) == sorted(line["custom_id"] for line in bad), f"error file {[line['custom_id'] for line in errors]}")
        for line in errors:
            status = (line.get("response") or {}).get("status_code")
            check((status is not None and status >= 400) or line.get("error", {}).get("code"), f"{line['custom_id']}: no error in {line}")

    def cancel_and_keys() -> str:
        lines = embedding_lines("cancel", 1000)
        batch = start_batch(owner, lines)
        running = wait(owner, batch.id, lambda b: b.status == "in_progress" and b.request_counts.completed >= 50)
        check(running.status == "in_progress", f"{running.status} before it could be cancelled")
        # Another key: nothing of it, while it runs.
        for what, call in {
            "retrieve the batch": lambda: other.batches.retrieve(batch.id),
            "cancel the batch": lambda: other.batches.cancel(batch.id),
            "retrieve the input file": lambda: other.files.retrieve(batch.input_file_id),
            "read the input file": lambda: other.files.content(batch.input_file_id),
            "batch the input file": lambda: other.batches.create(input_file_id=batch.input_file_id, endpoint="/v1/embeddings", completion_window="24h"),
        }.items():
            try:
                call()
                raise Failed(f"another key could {what}")
            except (NotFoundError, BadRequestError):
                pass  # 404, or 400 for an input_file_id it cannot read: either way, nothing of it
        check(batch.id not in [b.id for b in other.batches.list()], "another key lists the batch")
        check(batch.input_file_id not in [f.id for f in other.files.list()], "another key lists the file")
        check(owner.batches.retrieve(batch.id).status == "in_progress", "another key's cancel stopped it")
        cancelled = owner.batches.cancel(batch.id)
        check(cancelled.status in ("cancelling", "cancelled"), f"cancel answered {cancelled.status}")
        check(cancelled.cancelling_at is not None, "no cancelling_at in the cancel's answer")
        done = settle(owner, batch.id)
        check(done.status == "cancelled", f"ended {done.status}")
        expect_times(done, batch.created_at, time.time(), "cancelled", ("cancelling_at",))
        counts = done.request_counts
        check(counts.total == 1000 and 0 < counts.completed < 1000, f"request_counts {counts}")
        output = jsonl(owner, done.output_file_id)
        check(len(output) == counts.completed, f"{len(output)} output lines, request_counts.completed {counts.completed}")
        expect_each_once(output, [line["custom_id"] for line in lines], "partial output")
        expect_vectors(owner, output, lines, "partial output")
        for file_id in (done.output_file_id, batch.input_file_id):
            try:
                other.files.content(file_id)
                raise Failed(f"another key read {file_id}")
            except NotFoundError:
                pass
        return f"cancelled after {counts.completed} of 1000"

    def audio() -> str:
        forms: list[dict[str, Any]] = [
            {},
            {"response_format": "text"},
            {"response_format": "verbose_json", "timestamp_granularities": ["word", "segment"]},
            {"response_format": "srt"},
            {"response_format": "vtt", "language": "en", "temperature": 0},
            {"prompt": "Americans, country.", "response_format": "json"},
        ]
        clips = ["en_jfk.wav", "en_jfk.mp3"]
        ids = {clip: owner.files.create(file=(clip, (SPEECH / clip).read_bytes()), purpose="user_data").id for clip in clips}
        lines = [
            {"custom_id": f"{clip}-{i}", "method": "POST", "url": "/v1/audio/transcriptions", "body": {"model": STT_MODEL, "file": ids[clip], **form}}
            for clip in clips
            for i, form in enumerate(forms)
        ]
        done = settle(owner, start_batch(owner, lines, "/v1/audio/transcriptions").id)
        check(done.status == "completed" and done.request_counts.failed == 0, f"ended {done.status} {done.request_counts}")
        output = {line["custom_id"]: line for line in jsonl(owner, done.output_file_id)}
        check(len(output) == len(lines), f"{len(output)} output lines for {len(lines)}")
        for clip in clips:
            for i, form in enumerate(forms):
                with (SPEECH / clip).open("rb") as audio_file:
                    raw = owner.audio.transcriptions.with_raw_response.create(model=STT_MODEL, file=audio_file, **form)
                text = raw.http_response.text
                sync = json.loads(text) if "json" in raw.headers.get("content-type", "") else text
                line = output[f"{clip}-{i}"]
                check(line["response"]["status_code"] == 200, f"{clip} {form}: {line['response']['status_code']}")
                check(line["response"]["body"] == sync, f"{clip} {form}: batch {str(line['response']['body'])[:120]!r} != sync {str(sync)[:120]!r}")
        return f"{len(lines)} lines ({len(forms)} forms × {len(clips)} clips) equal to the synchronous route"

    def kill9() -> str:
        lines = embedding_lines("kill", 800)
        batch = start_batch(owner, lines)
        running = wait(owner, batch.id, lambda b: b.request_counts.completed >= 200, every=0.05)
        check(running.status == "in_progress", f"{running.status} before the kill ({running.request_counts})")
        server.kill9()
        server.start()
        client = server.client(owner_key)
        done = settle(client, batch.id)
        check(done.status == "completed", f"ended {done.status} {done.errors}")
        check(done.request_counts.model_dump() == {"total": 800, "completed": 800, "failed": 0}, f"request_counts {done.request_counts}")
        expect_times(done, batch.created_at, time.time(), "completed", ("finalizing_at",))
        output = jsonl(client, done.output_file_id)
        check(len(output) == 800, f"{len(output)} output lines for 800")
        expect_each_once(output, [line["custom_id"] for line in lines], "output after kill -9")
        check([line["custom_id"] for line in output] == [line["custom_id"] for line in lines], "output not in input order")
        expect_vectors(client, output, lines, "output after kill -9")
        resumed = "batch lines resumed" in server.log.read_text(errors="replace")
        check(resumed, "the restarted server did not say it resumed lines")
        return f"killed at {running.request_counts.completed} of 800 done"

    checks.run(f"{count} embedding lines: each custom_id once, vectors = sync, counts, timestamps", big_batch)
    if probes:
        checks.run("a synchronous request during the batch: median within 3x idle", latency)
    checks.run("bad lines reported by custom_id, good ones complete", bad_lines)
    checks.run("another key cannot see, read or cancel; cancel mid-way leaves each line once", cancel_and_keys)
    checks.run("audio files by id transcribe as the synchronous route", audio)
    checks.run("kill -9 mid-batch, restart: every line exactly once", kill9)


if __name__ == "__main__":
    sys.exit(main())
