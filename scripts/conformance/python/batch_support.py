"""The pieces of batch_check.py: the server it starts, kill -9s and restarts, the Batch API calls
it makes through the openai SDK, and what it expects of their answers."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

from openai import OpenAI

ROOT = Path(__file__).resolve().parents[3]
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


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())
