"""Keeps one copy of a Whisper decoder's tied embedding: the ONNX export stores the output
projection (proj_out = embed_tokensᵀ, the biggest tensor by far) as a second, transposed copy of
the embedding. This keeps only the transposed copy, which the output MatMul reads as it is, and
makes the token lookups gather its columns (Gather axis=1, then a Transpose of the few rows
looked up). Same maths, identical logits. The file shrinks (198 → 118 MB for tiny.en fp32) and,
unlike a Transpose of the embedding (which onnxruntime folds back into a second 80 MB table at
load), the session holds one table, as long as onnxruntime does not pre-pack the MatMul's
weight into yet another copy: the ASR worker turns pre-packing off for fp32 models
(asr-options.ts `prepackWeights`).

Apply it after quantising: the q8 quantiser only quantises MatMuls whose weight is an initializer.

Usage: python share_tied_embedding.py <decoder_model_merged.onnx> [--check]
  --check  runs the original and the rewritten graph once and requires identical logits.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper


def share_tied_embedding(decoder_path: Path) -> int:
    """Rewrites the file in place; returns how many embedding copies were removed."""
    model = onnx.load(str(decoder_path))
    graph = model.graph
    embedding = next(init for init in graph.initializer if "embed_tokens.weight" in init.name)
    table = numpy_helper.to_array(embedding)
    transposed = [
        init
        for init in graph.initializer
        if init is not embedding
        and list(init.dims) == [table.shape[1], table.shape[0]]
        and np.array_equal(numpy_helper.to_array(init), table.T)
    ]
    if len(transposed) != 1:
        return 0
    projection = transposed[0].name
    ranks = value_ranks(model)
    lookups = list(gathers_of(graph, embedding.name))
    for gather, _ in lookups:
        # The Transpose below puts the model dimension last for [batch, tokens] ids only.
        if ranks.get(gather.input[1]) != 2:
            raise SystemExit(f"{decoder_path}: the embedding lookup {gather.name} reads {gather.input[1]}, not known to be [batch, tokens]")
    graph.initializer.remove(embedding)
    for gather, nodes in lookups:
        # Row i of the table is column i of its transpose: gather along axis 1 ([dim, *ids]),
        # then move the model dimension last again ([*ids, dim]).
        at = list(nodes).index(gather)
        ids, out = gather.input[1], gather.output[0]
        nodes.remove(gather)
        nodes.insert(at, helper.make_node("Gather", [projection, ids], [f"{out}_columns"], axis=1))
        nodes.insert(at + 1, helper.make_node("Transpose", [f"{out}_columns"], [out], perm=[1, 2, 0]))
    onnx.checker.check_model(model)
    onnx.save(model, str(decoder_path))
    return 1


def value_ranks(model: onnx.ModelProto) -> dict[str, int]:
    """The rank of every value shape inference knows, in the graph and in its subgraphs."""
    ranks: dict[str, int] = {}

    def visit(graph: onnx.GraphProto) -> None:
        for value in [*graph.input, *graph.value_info, *graph.output]:
            if value.type.tensor_type.HasField("shape"):
                ranks[value.name] = len(value.type.tensor_type.shape.dim)
        for node in graph.node:
            for attribute in node.attribute:
                if attribute.type == onnx.AttributeProto.GRAPH:
                    visit(attribute.g)

    visit(onnx.shape_inference.infer_shapes(model).graph)
    return ranks


def gathers_of(graph: onnx.GraphProto, table: str):
    """Every Gather reading `table`, in the graph and in its subgraphs (the If branches of a merged decoder)."""
    for node in list(graph.node):
        if node.op_type == "Gather" and node.input[0] == table:
            yield node, graph.node
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                yield from gathers_of(attribute.g, table)


def first_step_logits(path: Path) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    feeds = {}
    for value in session.get_inputs():
        shape = [d if isinstance(d, int) else 0 for d in value.shape]
        if value.name == "input_ids":
            feeds[value.name] = np.array([[50257, 50362]], dtype=np.int64)
        elif value.name == "encoder_hidden_states":
            feeds[value.name] = rng.standard_normal((1, 1500, shape[2]), dtype=np.float32)
        elif value.name == "use_cache_branch":
            feeds[value.name] = np.array([False])
        else:  # past key/values are ignored by the no-cache branch but must be fed
            feeds[value.name] = np.zeros([1, shape[1], 1, shape[3]], dtype=np.float32)
    return session.run(["logits"], feeds)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("decoder", type=Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        original = Path(tmp) / "original.onnx"
        if args.check:
            shutil.copy(args.decoder, original)
        removed = share_tied_embedding(args.decoder)
        if removed != 1:
            raise SystemExit(f"{args.decoder}: expected one transposed embedding copy, found {removed}")
        if args.check and not np.array_equal(first_step_logits(original), first_step_logits(args.decoder)):
            raise SystemExit(f"{args.decoder}: logits changed after sharing the embedding")
    print(f"shared the tied embedding in {args.decoder.name} ({args.decoder.stat().st_size / 1e6:.0f} MB)")


if __name__ == "__main__":
    main()
