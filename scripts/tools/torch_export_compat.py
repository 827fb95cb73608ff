"""optimum 1.26 was written for the TorchScript exporter; torch >= 2.9 defaults to dynamo=True, which
needs onnxscript and ignores optimum's dynamic_axes. Every export script calls this before exporting."""
import functools


def use_torchscript_exporter() -> None:
    import torch.onnx

    if not getattr(torch.onnx.export, "_legacy_default", False):
        export = functools.partial(torch.onnx.export, dynamo=False)
        export._legacy_default = True  # type: ignore[attr-defined]
        torch.onnx.export = export
