"""Computes a Whisper encoder's self-attention one head at a time, so the largest tensors it
holds are one head's scores instead of all heads' at once. The eager export computes
softmax(q @ kᵀ) @ v for every head in one MatMul: [batch, heads, 1500, 1500] floats, 54 MB for
tiny's 6 heads, with its softmax another 54 MB, both alive together. That pair was most of the
ASR worker's first-window peak (scripts/bench/asr-memory.ts). Split per head, onnxruntime's
memory planner reuses one head's 9 MB buffers for the next. Same maths per head, so the
encoder's output is unchanged (`--check` requires it to within float rounding).

Apply it to the fp32 and the q8 encoder alike: the quantiser leaves these MatMuls (no weight
operand) in float.

Usage: python split_attention_heads.py <encoder_model.onnx> --config <config.json> [--check]
  --config  the model's Hugging Face config.json (encoder_attention_heads: the export's head
            axis has no static size)
  --check   runs the original and the rewritten graph once and requires the same output
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper


def split_attention_heads(encoder_path: Path, heads: int) -> int:
    """Rewrites the file in place; returns how many attention blocks were split."""
    model = onnx.load(str(encoder_path))
    graph = model.graph
    producer = {output: node for node in graph.node for output in node.output}
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)

    split = 0
    for softmax in [node for node in graph.node if node.op_type == "Softmax"]:
        scores = producer.get(softmax.input[0])
        readers = consumers.get(softmax.output[0], [])
        if scores is None or scores.op_type != "MatMul" or len(consumers[scores.output[0]]) != 1:
            continue
        if len(readers) != 1 or readers[0].op_type != "MatMul" or readers[0].input[0] != softmax.output[0]:
            continue
        replace_with_heads(graph, scores, softmax, readers[0], heads, f"head_split_{split}")
        split += 1
    if split:
        onnx.checker.check_model(model)
        onnx.save(model, str(encoder_path))
    return split


def replace_with_heads(graph: onnx.GraphProto, scores, softmax, mix, heads: int, prefix: str) -> None:
    """q @ kᵀ → softmax → @ v becomes the same chain per head (Split on axis 1, Concat back).
    The chains are emitted one after another so each head's scores die before the next's exist."""
    query, keys = scores.input
    values = mix.input[1]
    sizes = f"{prefix}_sizes"
    graph.initializer.append(numpy_helper.from_array(np.ones(heads, dtype=np.int64), sizes))
    nodes = [
        helper.make_node("Split", [name, sizes], [f"{prefix}_{role}_{h}" for h in range(heads)], axis=1)
        for role, name in (("q", query), ("k", keys), ("v", values))
    ]
    for h in range(heads):
        nodes += [
            helper.make_node("MatMul", [f"{prefix}_q_{h}", f"{prefix}_k_{h}"], [f"{prefix}_scores_{h}"]),
            helper.make_node("Softmax", [f"{prefix}_scores_{h}"], [f"{prefix}_weights_{h}"], axis=softmax_axis(softmax)),
            helper.make_node("MatMul", [f"{prefix}_weights_{h}", f"{prefix}_v_{h}"], [f"{prefix}_out_{h}"]),
        ]
    nodes.append(helper.make_node("Concat", [f"{prefix}_out_{h}" for h in range(heads)], [mix.output[0]], axis=1))
    at = list(graph.node).index(scores)
    for node in (scores, softmax, mix):
        graph.node.remove(node)
    for offset, node in enumerate(nodes):
        graph.node.insert(at + offset, node)


def softmax_axis(softmax) -> int:
    return next((attribute.i for attribute in softmax.attribute if attribute.name == "axis"), -1)


def encoder_output(path: Path) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (features,) = session.get_inputs()
    mels = features.shape[1] if isinstance(features.shape[1], int) else 80
    rng = np.random.default_rng(0)
    return session.run(None, {features.name: rng.standard_normal((1, mels, 3000), dtype=np.float32)})[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("encoder", type=Path)
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    heads = json.loads(args.config.read_text())["encoder_attention_heads"]
    with tempfile.TemporaryDirectory() as tmp:
        original = Path(tmp) / "original.onnx"
        if args.check:
            shutil.copy(args.encoder, original)
        split = split_attention_heads(args.encoder, heads)
        if split == 0:
            raise SystemExit(f"{args.encoder}: found no attention block to split")
        if args.check:
            before, after = encoder_output(original), encoder_output(args.encoder)
            if not np.allclose(before, after, rtol=1e-4, atol=1e-4):
                raise SystemExit(f"{args.encoder}: output changed after splitting heads (max diff {np.abs(before - after).max()})")
    print(f"split {split} attention blocks into {heads} heads each in {args.encoder.name}")


if __name__ == "__main__":
    main()
