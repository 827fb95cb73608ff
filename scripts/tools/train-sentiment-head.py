"""Fits a linear head for minilm-sentiment (engine option options.head) from lexicon data.

    .cache/venv/bin/python scripts/tools/train-sentiment-head.py            # fit, print validation
    .cache/venv/bin/python scripts/tools/train-sentiment-head.py --write    # also put it in models.json

NOT ENABLED in models/models.json: measured once (2026-11-22) with `npx tsx scripts/eval/classification.ts`,
this head scored 0.683 on SST-2 validation against 0.723 for the prototype sentences, although it
scored 0.890 against 0.870 on TweetEval positive/negative. Word-level polarity from a lexicon does
not transfer to SST-2's compositional movie-review sentences (negation, contrast) as well as
whole review-like prototypes do. Kept so the experiment can be reproduced, or redone on better data.

Training data, all from registry packages or the manifest, none from an evaluation set:
  * the VADER lexicon (vaderSentiment 3.3.2 on PyPI, MIT licence; word -> mean valence in [-4, 4]
    rated by 10 people): every plain word with |valence| >= 1.5, put in one short template
    ("it was {w}.", "a {w} movie.", ...), labelled by the sign of its valence;
  * 3000 longer synthetic review sentences per label, each filling a template with three words
    of the same sign and film aspects ("the acting is {w1} and the plot is {w2}.");
  * the prototype sentences of options.labels (written by hand, no evaluation items).
They are embedded exactly as the engine does (all-MiniLM-L6-v2 ONNX from the installed model
folder, mean pooling under the mask, L2 norm; parity with the TypeScript worker checked to 1e-6),
and an L2-regularised logistic regression (C = 0.1, balanced classes) is fitted with scikit-learn.
Threshold 1.5, 3000 long sentences and C = 0.1 were chosen on the TweetEval positive/negative
rows (which eval:text does not score) and a held-out synthetic split; never on SST-2.

The binary model w.e + b is stored as a 2-row softmax head: positive (w/2, b/2), negative
(-w/2, -b/2), whose softmax is exactly sigmoid(w.e + b). Deterministic: fixed seeds, lbfgs,
values rounded to 6 decimals. Needs scikit-learn in the tools venv (pip install scikit-learn).
"""
import hashlib, json, os, random, re, subprocess, sys, zipfile
import numpy as np
import onnxruntime as ort
from sklearn.linear_model import LogisticRegression
from tokenizers import Tokenizer

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
MANIFEST = os.environ.get("MODELS_MANIFEST", os.path.join(ROOT, "models/models.json"))
MODELS_DIR = os.environ.get("MODELS_DIR", os.path.join(ROOT, "models"))
WHEEL_CACHE = os.path.join(ROOT, ".cache/wheels")
TWEETEVAL = os.path.join(os.environ.get("EVAL_DIR", os.path.join(ROOT, "../shared/eval")), "classification/tweeteval_sentiment_test_300.tsv")
VADER = ("vaderSentiment", "3.3.2", "vaderSentiment-3.3.2-py2.py3-none-any.whl",
         "3bf1d243b98b1afad575b9f22bc2cb1e212b94ff89ca74f8a23a588d024ea311")
MODEL_ID = "minilm-sentiment"
THRESHOLD, LONG_PER_LABEL, C = 1.5, 3000, 0.1

SHORT = ["{w}", "it was {w}.", "a {w} movie.", "the film is {w}.", "this is {w}.", "i found it {w}.",
         "such a {w} experience.", "the story feels {w}."]
ASPECTS = ["the acting", "the plot", "the script", "the direction", "the music", "the characters", "the ending",
           "the dialogue", "the story", "the cast", "the pacing", "the humor"]
LONG = ["{a1} is {w1} and {a2} is {w2}.", "{w1}, {w2} and {w3}.", "a {w1} film with {w2} moments, and {a1} is {w3}.",
        "{a1} feels {w1}, {a2} {w2}; overall it is {w3}.", "what a {w1} movie: {a1} is {w2} from start to finish.",
        "i thought it was {w1}, and {a1} was {w2}.", "{a1} is {w1}, but {a2} is even more {w2}."]


def vader_lexicon():
    name, version, wheel, digest = VADER
    path = os.path.join(WHEEL_CACHE, wheel)
    if not os.path.exists(path):
        os.makedirs(WHEEL_CACHE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", f"{name}=={version}", "-d", WHEEL_CACHE], check=True)
    if hashlib.sha256(open(path, "rb").read()).hexdigest() != digest:
        sys.exit(f"{wheel}: sha256 does not match the pinned {digest}")
    with zipfile.ZipFile(path) as archive:
        lines = archive.read("vaderSentiment/vader_lexicon.txt").decode("utf8").splitlines()
    # Plain words only: the lexicon also rates emoticons and slang abbreviations.
    pairs = (line.split("\t")[:2] for line in lines)
    return {word: float(valence) for word, valence in pairs if re.fullmatch(r"[a-z][a-z'-]*[a-z]", word)}


def training_sentences(lexicon, prototypes):
    rng = random.Random(0)
    positive = sorted(w for w, v in lexicon.items() if v >= THRESHOLD)
    negative = sorted(w for w, v in lexicon.items() if v <= -THRESHOLD)
    data = [(rng.choice(SHORT).format(w=w), y) for words, y in ((positive, 1), (negative, 0)) for w in words]
    for words, y in ((positive, 1), (negative, 0)):
        for _ in range(LONG_PER_LABEL):
            a1, a2 = rng.sample(ASPECTS, 2)
            w1, w2, w3 = rng.sample(words, 3)
            data.append((rng.choice(LONG).format(a1=a1, a2=a2, w1=w1, w2=w2, w3=w3), y))
    data += [(text, 1) for text in prototypes["positive"]] + [(text, 0) for text in prototypes["negative"]]
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


def fit_head(entry):
    labels = {spec["label"]: spec["descriptions"] for spec in entry["options"]["labels"]}
    assert [spec["label"] for spec in entry["options"]["labels"]] == ["positive", "negative"]
    data = training_sentences(vader_lexicon(), labels)
    embed = Embedder(os.path.join(MODELS_DIR, entry["options"]["baseModel"]))
    x = embed([text for text, _ in data])
    y = np.array([label for _, label in data])
    model = LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit(x, y)
    print(f"{len(data)} training sentences, training accuracy {model.score(x, y):.3f}")
    if os.path.exists(TWEETEVAL):
        rows = [line.rsplit("\t", 1) for line in open(TWEETEVAL, encoding="utf8").read().splitlines()[1:]]
        rows = [(text, label == "positive") for text, label in rows if label in ("positive", "negative")]
        accuracy = model.score(embed([text for text, _ in rows]), np.array([label for _, label in rows], int))
        print(f"TweetEval positive/negative ({len(rows)} rows): accuracy {accuracy:.3f}")
    w, b = model.coef_[0] / 2, float(model.intercept_[0]) / 2
    rnd = lambda values: [round(float(v), 6) for v in values]
    return {"weights": [rnd(w), rnd(-w)], "bias": rnd([b, -b])}


def head_block(head, indent):
    inner = indent + "  "
    rows = ",\n".join(f"{inner}  {json.dumps(row)}" for row in head["weights"])
    return (f'"head": {{\n{inner}"source": "logistic regression on VADER-lexicon sentences; scripts/tools/train-sentiment-head.py",\n'
            f'{inner}"weights": [\n{rows}\n{inner}],\n{inner}"bias": {json.dumps(head["bias"])}\n{indent}}}')


def main():
    text = open(MANIFEST, encoding="utf8").read()
    entry = next(m for m in json.loads(text)["models"] if m["id"] == MODEL_ID)
    head = fit_head(entry)
    if "--write" not in sys.argv:
        return
    start = text.index(f'"id": "{MODEL_ID}"')
    end = text.index('"labels": [', start)
    section = text[start:end]
    existing = re.search(r'"head": \{.*?\n\s*\}', section, re.S)
    if existing:
        indent = re.search(r"\n(\s*)\}$", existing.group(0)).group(1)
        section = section[:existing.start()] + head_block(head, indent) + section[existing.end():]
    else:
        line = re.search(r'\n(\s*)"baseModel": [^\n]*,', section)
        section = section[:line.end()] + f"\n{line.group(1)}" + head_block(head, line.group(1)) + "," + section[line.end():]
    text = text[:start] + section + text[end:]
    json.loads(text)  # still valid JSON
    open(MANIFEST, "w", encoding="utf8").write(text)
    print(f"wrote options.head of {MODEL_ID} into {MANIFEST}")


if __name__ == "__main__":
    main()
