"""The Files + Batch API checked from outside, as a held-out check would: the `openai` SDK against
the real server (its own process, SQLite, the real MiniLM and whisper-tiny.en), one PASS/FAIL
line per check. It starts (and kill -9s, and restarts) the server itself.

    "$(bash scripts/tools/setup-venv.sh)" scripts/conformance/batch_check.py [--lines 2000] [--results out.jsonl]

`npm run conformance` runs it as the `batch` suite (--results: one JSON line per check).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from openai import BadRequestError, NotFoundError, OpenAI

ROOT = Path(__file__).resolve().parents[2]
MODELS_DIR = Path(os.environ.get("MODELS_DIR", ROOT / "models")).resolve()
SPEECH = ROOT / "test/fixtures/speech"
EMBED_MODEL = "text-embedding-3-small"
STT_MODEL = "whisper-tiny.en"
FINAL = {"completed", "failed", "expired", "cancelled"}
DAY = 24 * 3600


class Failed(Exception):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)


class Server:
    """src/server.ts in its own process (`node --import tsx`, so kill -9 reaches the server itself)."""

    def __init__(self, work: Path, admin_key: str) -> None:
        self.work = work
        manifest = json.loads((MODELS_DIR / "models.json").read_text())
        wanted = {"minilm-embeddings", STT_MODEL, "silero-vad-v6"}
        small = {
            "models": [entry for entry in manifest["models"] if entry["id"] in wanted],
            "aliases": {EMBED_MODEL: manifest["aliases"][EMBED_MODEL]},
        }
        (work / "models.json").write_text(json.dumps(small))
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": os.environ.get("HOME", "/tmp"),
            "PORT": "0",
            "HOST": "127.0.0.1",
            "LOG_LEVEL": "info",
            "DATABASE_URL": f"sqlite:{work / 'app.db'}",
            "FILES_DIR": str(work / "files"),
            "MODELS_DIR": str(MODELS_DIR),
            "MODELS_MANIFEST": str(work / "models.json"),
            "API_KEYS": admin_key,
        }
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.starts = 0

    def key(self, name: str) -> str:
        """A new non-admin key, made by `npm run keys` on the same database."""
        made = subprocess.run(
            [node(), "--import", "tsx", "scripts/keys.ts", "create", "--name", name],
            cwd=ROOT, env=self.env, capture_output=True, text=True, check=True,
        )
        return made.stdout.strip().splitlines()[-1]

    def start(self) -> None:
        self.starts += 1
        self.log = self.work / f"server-{self.starts}.log"
        sink = self.log.open("wb")
        self.proc = subprocess.Popen([node(), "--import", "tsx", "src/server.ts"], cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=sink)
        until = time.monotonic() + 90
        while time.monotonic() < until:
            match = re.search(r'"message":"listening","url":"([^"]+)"', self.log.read_text(errors="replace"))
            if match:
                self.url = match.group(1)
                return
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited ({self.proc.returncode}):\n{self.log.read_text()[-3000:]}")
            time.sleep(0.2)
        raise RuntimeError("server did not listen within 90 s")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def client(self, key: str) -> OpenAI:
        return OpenAI(base_url=f"{self.url}/v1", api_key=key, timeout=300, max_retries=0)


def node() -> str:
    return os.environ.get("NODE") or shutil.which("node") or "node"


def embedding_lines(prefix: str, count: int) -> list[dict[str, Any]]:
    return [
        {
            "custom_id": f"{prefix}-{i}",
            "method": "POST",
            "url": "/v1/embeddings",
            "body": {"model": EMBED_MODEL, "input": f"Passage {i} of {prefix}: {'the quick brown fox jumps over the lazy dog ' * (1 + i % 7)}"},
        }
        for i in range(count)
    ]


def upload(client: OpenAI, lines: list[Any], purpose: str = "batch") -> str:
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    return client.files.create(file=("input.jsonl", text.encode()), purpose=purpose).id  # type: ignore[arg-type]


def start_batch(client: OpenAI, lines: list[Any], endpoint: str = "/v1/embeddings") -> Any:
    return client.batches.create(input_file_id=upload(client, lines), endpoint=endpoint, completion_window="24h")  # type: ignore[arg-type]


def wait(client: OpenAI, batch_id: str, until: Callable[[Any], bool], timeout: float = 900, every: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        batch = client.batches.retrieve(batch_id)
        if until(batch) or batch.status in FINAL:
            return batch
        check(time.monotonic() < deadline, f"{batch_id} still {batch.status} {batch.request_counts} after {timeout} s")
        time.sleep(every)


def settle(client: OpenAI, batch_id: str, timeout: float = 900) -> Any:
    return wait(client, batch_id, lambda b: b.status in FINAL, timeout, 0.25)


def jsonl(client: OpenAI, file_id: str | None) -> list[dict[str, Any]]:
    if file_id is None:
        return []
    return [json.loads(line) for line in client.files.content(file_id).text.splitlines() if line.strip()]


def sync_vectors(client: OpenAI, inputs: list[str]) -> list[list[float]]:
    vectors: list[list[float]] = []
    for at in range(0, len(inputs), 100):
        vectors += [item.embedding for item in client.embeddings.create(model=EMBED_MODEL, input=inputs[at : at + 100]).data]
    return vectors


def expect_each_once(output: list[dict[str, Any]], ids: list[str], what: str) -> None:
    seen = [line["custom_id"] for line in output]
    dupes = sorted({i for i in seen if seen.count(i) > 1}) if len(set(seen)) != len(seen) else []
    check(not dupes, f"{what}: custom_ids more than once: {dupes[:5]}")
    check(set(seen) <= set(ids), f"{what}: custom_ids not in the input: {sorted(set(seen) - set(ids))[:5]}")
    check(len({line["id"] for line in output}) == len(output), f"{what}: output line ids repeat")


def expect_vectors(client: OpenAI, output: list[dict[str, Any]], lines: list[dict[str, Any]], what: str) -> None:
    by_id = {line["custom_id"]: line["body"]["input"] for line in lines}
    inputs = [by_id[line["custom_id"]] for line in output]
    for line, vector in zip(output, sync_vectors(client, inputs)):
        check(line["error"] is None and line["response"]["status_code"] == 200, f"{what}: {line['custom_id']} answered {line['response']} {line['error']}")
        check(line["response"]["body"]["data"][0]["embedding"] == vector, f"{what}: {line['custom_id']}'s vector is not the synchronous one")


def expect_times(batch: Any, before: float, after: float, ending: str, extra: tuple[str, ...] = ()) -> None:
    """OpenAI's Batch timestamps: Unix seconds, in order, only those of the path taken."""
    path = ["created_at", "in_progress_at", *extra, f"{ending}_at"]
    stamps = [getattr(batch, name) for name in path]
    check(all(isinstance(s, int) for s in stamps), f"timestamps not all integers: {dict(zip(path, stamps))}")
    check(stamps == sorted(stamps), f"timestamps out of order: {dict(zip(path, stamps))}")
    check(int(before) - 1 <= batch.created_at <= after + 1, f"created_at {batch.created_at} outside [{before:.0f}, {after:.0f}]")
    check(stamps[-1] <= time.time() + 1, f"{ending}_at {stamps[-1]} in the future")
    check(batch.expires_at == batch.created_at + DAY, f"expires_at {batch.expires_at} is not created_at + 24 h")
    others = {"in_progress_at", "finalizing_at", "completed_at", "failed_at", "expired_at", "cancelling_at", "cancelled_at"} - set(path)
    stray = {name: getattr(batch, name) for name in others if getattr(batch, name) is not None}
    check(not stray, f"timestamps of a path not taken: {stray}")


class Checks:
    def __init__(self, results: Path | None) -> None:
        self.rows: list[dict[str, Any]] = []
        self.sink = results.open("w") if results else None

    def run(self, name: str, fn: Callable[[], str | None]) -> None:
        start = time.perf_counter()
        row: dict[str, Any] = {"suite": "batch", "name": name, "ok": True}
        try:
            note = fn()
            if note:
                row["detail"] = note
        except Exception as error:  # noqa: BLE001 - every failure is a row
            row.update(ok=False, detail=f"{type(error).__name__}: {error}")
        row["ms"] = round((time.perf_counter() - start) * 1000)
        self.rows.append(row)
        print(f"{'PASS' if row['ok'] else 'FAIL'}  {name}  ({row['ms']} ms){'  ' + row['detail'] if row.get('detail') else ''}", flush=True)
        if self.sink:
            self.sink.write(json.dumps(row) + "\n")
            self.sink.flush()


def main() -> int:
    parser = argparse.ArgumentParser()
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


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
