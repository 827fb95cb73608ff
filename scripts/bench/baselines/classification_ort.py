"""Baseline for scripts/bench/classification.ts: the same embedding classifier in plain Python.

Python onnxruntime + HF tokenizers on the same all-MiniLM-L6-v2 ONNX, the same label scoring
(trained head or prototypes, read from the same models.json entry) and the same intra-op thread count. Each client is a
thread that classifies one text per session.run (batch 1, no padding): what a straightforward
Python service does without micro-batching. onnxruntime releases the GIL inside run(), so
concurrent clients do overlap.

Usage: python classification_ort.py <model_dir> <manifest> <model_id> <texts_file> <threads> <requests> <concurrency>...
Prints one JSON line: {"results": [{"concurrency": c, "requests": n, "seconds": s, "texts_per_s": r, "latencies_ms": [...]}],
"top": [...]}, latencies_ms holding each request's time by request index (request i classifies text i mod the text count).
With FASTEST_TEXTS=k and FASTEST_RUNS=n in the environment it also prints "fastest_ms": for each of the first
k texts, its fastest of n one-at-a-time classifications (each after FASTEST_GAP_MS of idleness, if set),
"runs_ms": every one of those runs in order (the spread), and "stages_ms": the fastest for each step of one (tokenize, run, pool_head), timed in separate runs.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def main() -> None:
    model_dir, manifest, model_id, texts_file, threads, requests = sys.argv[1:7]
    levels = [int(c) for c in sys.argv[7:]]
    threads, requests = int(threads), int(requests)

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(f"{model_dir}/onnx/model.onnx", options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tokenizer.no_padding()  # tokenizer.json pads to a fixed 128; the server pads to the longest in a batch
    tokenizer.enable_truncation(256)

    def embed(texts: list[str]) -> np.ndarray:
        encodings = tokenizer.encode_batch(texts)
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), length), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = 1
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    options = next(m for m in json.load(open(manifest))["models"] if m["id"] == model_id)["options"]
    specs = [{"label": spec, "descriptions": [spec]} if isinstance(spec, str) else spec for spec in options["labels"]]
    names = [spec["label"] for spec in specs]
    if "head" in options:  # the engine's trained head: softmax(W.e + b)
        weights, bias, temperature = np.array(options["head"]["weights"], np.float32), np.array(options["head"]["bias"], np.float32), 1.0
    else:  # prototype similarity: cosine to each label's mean description, softmax at the temperature
        centroids = np.stack([embed(spec["descriptions"]).mean(0) for spec in specs])
        weights, bias = centroids / np.linalg.norm(centroids, axis=1, keepdims=True), np.zeros(len(specs), np.float32)
        temperature = options.get("temperature", 0.05)

    def classify(text: str) -> list[tuple[str, float]]:
        scores = (embed([text])[0] @ weights.T + bias) / temperature
        scores = np.exp(scores - scores.max())
        scores /= scores.sum()
        return sorted(zip(names, scores.tolist()), key=lambda pair: -pair[1])

    def fastest_stages(texts: list[str], runs: int) -> dict[str, list[float]]:
        """classify() cut into its steps, each step's fastest of `runs` per text (the bench's breakdown)."""
        stages = {name: [float("inf")] * len(texts) for name in ("tokenize", "run", "pool_head")}
        for _ in range(runs):
            for index, text in enumerate(texts):
                t0 = time.perf_counter()
                ids = np.array([tokenizer.encode(text).ids], dtype=np.int64)
                mask = np.ones_like(ids)
                t1 = time.perf_counter()
                hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
                t2 = time.perf_counter()
                pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
                scores = ((pooled / np.linalg.norm(pooled, axis=1, keepdims=True))[0] @ weights.T + bias) / temperature
                scores = np.exp(scores - scores.max())
                sorted(zip(names, (scores / scores.sum()).tolist()), key=lambda pair: -pair[1])
                t3 = time.perf_counter()
                for name, ms in zip(stages, ((t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000)):
                    stages[name][index] = min(stages[name][index], ms)
        return stages

    texts = [line.rsplit("\t", 1)[0] for line in open(texts_file, encoding="utf-8").read().strip().split("\n")[1:]]
    for text in texts[:10]:
        classify(text)  # warm-up

    results = []
    for concurrency in levels:
        counter = iter(range(requests))
        lock = threading.Lock()
        latencies = [0.0] * requests

        def client() -> None:
            while True:
                with lock:
                    index = next(counter, None)
                if index is None:
                    return
                sent = time.perf_counter()
                classify(texts[index % len(texts)])
                latencies[index] = (time.perf_counter() - sent) * 1000

        started = time.perf_counter()
        workers = [threading.Thread(target=client) for _ in range(concurrency)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        seconds = time.perf_counter() - started
        results.append(
            {"concurrency": concurrency, "requests": requests, "seconds": seconds, "texts_per_s": requests / seconds, "latencies_ms": latencies}
        )
    top = [classify(text)[0][0] for text in texts[:20]]
    output = {"results": results, "top": top}
    fastest_texts, fastest_runs = int(os.environ.get("FASTEST_TEXTS", 0)), int(os.environ.get("FASTEST_RUNS", 0))
    if fastest_texts and fastest_runs:  # see scripts/bench/classification-lone.ts
        fastest = [float("inf")] * fastest_texts
        runs = []
        gap = float(os.environ.get("FASTEST_GAP_MS", 0)) / 1000
        for _ in range(fastest_runs):
            for index, text in enumerate(texts[:fastest_texts]):
                if gap:
                    time.sleep(gap)
                sent = time.perf_counter()
                classify(text)
                runs.append((time.perf_counter() - sent) * 1000)
                fastest[index] = min(fastest[index], runs[-1])
        output["fastest_ms"] = fastest
        output["runs_ms"] = runs
        output["stages_ms"] = fastest_stages(texts[:fastest_texts], fastest_runs)
    print(json.dumps(output))


if __name__ == "__main__":
    main()
