"""Moves an ONNX model's weights out of the graph file into `<file>.onnx_data` beside it.

onnxruntime maps external weights into memory instead of parsing them out of the protobuf and
copying them into tensors, so loading a model no longer holds the file, its parsed copy and the
tensors at once, and weights cost memory only once read (as file pages the kernel can drop and
share). Measured on whisper-tiny.en fp32 (scripts/bench/asr-memory.ts): the ASR worker's RSS
after load +135 MB instead of +370, the same steps after. The server loads models from their
path (transformers.js passes the path in Node), and onnxruntime finds the data file by the name
recorded in the graph.

Usage: python external_weights.py <model.onnx> [<model.onnx> ...]   (rewrites each in place)
"""

from __future__ import annotations

import sys
from pathlib import Path

import onnx

# Small tensors (shapes, scales) stay in the graph, as onnx's own default threshold does.
SIZE_THRESHOLD_BYTES = 1024


def externalise(path: Path) -> Path:
    data = path.with_name(f"{path.name}_data")
    model = onnx.load(str(path))
    data.unlink(missing_ok=True)  # onnx appends to an existing data file
    onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data.name, size_threshold=SIZE_THRESHOLD_BYTES)
    onnx.checker.check_model(str(path))
    return data


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for name in sys.argv[1:]:
        path = Path(name)
        data = externalise(path)
        print(f"{path.name}: graph {path.stat().st_size / 1e6:.1f} MB, weights in {data.name} ({data.stat().st_size / 1e6:.0f} MB)")


if __name__ == "__main__":
    main()
