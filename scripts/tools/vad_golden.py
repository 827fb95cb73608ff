"""Expected speech regions for test/inference/speech-to-text/speech-timestamps.test.ts, computed by
faster-whisper's own get_speech_timestamps (vad.py read from its wheel, model call replaced by fixed
probabilities, so no weights and no onnxruntime are needed).

  python scripts/tools/vad_golden.py .cache/wheels/faster_whisper-1.2.1-py3-none-any.whl \
    test/fixtures/vad/faster-whisper-speech-timestamps.json
"""
import sys, types, json, numpy as np
utils = types.ModuleType('faster_whisper.utils'); utils.get_assets_path = lambda: ''
pkg = types.ModuleType('faster_whisper'); pkg.__path__ = []
sys.modules['faster_whisper'] = pkg; sys.modules['faster_whisper.utils'] = utils
import zipfile
wheel = sys.argv[1]
vad = types.ModuleType("faster_whisper.vad"); exec(compile(zipfile.ZipFile(wheel).read("faster_whisper/vad.py").decode(), "vad.py", "exec"), vad.__dict__)
def run(probs, length, **opts):
    probs = np.array(probs, dtype=np.float32)
    vad.get_vad_model = lambda: (lambda padded: probs)
    return vad.get_speech_timestamps(np.zeros(length, dtype=np.float32), vad.VadOptions(**opts))
def seq(*parts):
    out = []
    for value, n in parts: out += [value] * n
    return out
cases = []
def add(name, probs, length, **opts):
    cases.append({'name': name, 'probs': [round(float(p), 3) for p in probs], 'length': length, 'options': opts, 'expected': run([round(float(p),3) for p in probs], length, **opts)})
a = seq((0.1, 10), (0.9, 30), (0.2, 20), (0.9, 30), (0.05, 100))
add('two bursts, default options (2 s silence merges them)', a, len(a)*512 - 100)
add('two bursts split by 300 ms silence', a, len(a)*512 - 100, min_silence_duration_ms=300, speech_pad_ms=30)
b = seq((0.1, 5), (0.9, 10), (0.4, 40), (0.9, 10), (0.1, 80))
add('hysteresis: 0.4 continues speech', b, len(b)*512, min_silence_duration_ms=100, speech_pad_ms=0)
add('neg_threshold 0.45 ends it', b, len(b)*512, min_silence_duration_ms=100, speech_pad_ms=0, neg_threshold=0.45)
c = seq((0.1, 3), (0.9, 40), (0.1, 5), (0.9, 60), (0.1, 30))
add('max speech 1 s splits at a 98+ ms silence', c, len(c)*512, max_speech_duration_s=1.0, min_silence_duration_ms=1000, speech_pad_ms=20)
d = seq((0.1, 3), (0.9, 200), (0.1, 3))
add('max speech 1 s without silence cuts hard', d, len(d)*512, max_speech_duration_s=1.0, speech_pad_ms=20)
e = seq((0.1, 10), (0.9, 3), (0.1, 80), (0.9, 20), (0.1, 80))
add('min speech drops a 96 ms blip', e, len(e)*512, min_speech_duration_ms=250, min_silence_duration_ms=500, speech_pad_ms=50)
f = seq((0.1, 10), (0.9, 20))
add('speech to the end of the audio', f, len(f)*512 - 300, min_silence_duration_ms=500)
rng = np.random.default_rng(7)
g = np.clip(np.repeat(rng.random(60), 6) + rng.normal(0, 0.1, 360), 0, 1)
add('random', g, len(g)*512 - 17, min_silence_duration_ms=200, speech_pad_ms=60)
add('random, max 2 s', g, len(g)*512 - 17, min_silence_duration_ms=500, speech_pad_ms=100, max_speech_duration_s=2.0, min_speech_duration_ms=100)
add('silence', seq((0.02, 500)), 500*512, )
json.dump({'generator': 'scripts/tools/vad_golden.py (faster-whisper 1.2.1 vad.get_speech_timestamps on these probabilities)', 'cases': cases}, open(sys.argv[2], 'w')); print(file=open(sys.argv[2], 'a'))
for c in cases: print(c['name'], c['expected'])
