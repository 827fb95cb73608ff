/**
 * The hub models of the generated catalogue: Whisper sizes, opus-mt pairs, M2M100, embeddings.
 * Every revision, licence and hash here comes from a source named beside it (the commit that
 * changed this file says where each was read); nothing is guessed. Where no public source lists a
 * repo's files, the entry is a `hubRepo`: the files are read from the hub's tree at install and
 * checked against the SHA-256 the hub publishes. Where no commit was found, the revision is
 * "main" and the install records the commit it got.
 */
import type { DiskSize, ManifestEntry } from '../../src/inference/manifest.js';
import { WHISPER_LANGUAGE_CODES } from '../../src/inference/speech-to-text/whisper-languages.js';

/** Whisper's code and weights: openai/whisper README.md@0033c7ff, "released under the MIT License". */
const WHISPER_LICENSE = 'MIT (openai/whisper: code and model weights)';
/** Helsinki-NLP/Opus-MT README.md@027e41b6: the pre-trained OPUS-MT models are CC-BY 4.0. */
const OPUS_MT_LICENSE = 'CC-BY-4.0 (Helsinki-NLP OPUS-MT models)';

/** Whisper before large-v3: 99 languages; large-v3 added Cantonese (yue). */
const WHISPER_99 = WHISPER_LANGUAGE_CODES.filter((code) => code !== 'yue');
const WHISPER_100 = [...WHISPER_LANGUAGE_CODES];

interface WhisperSpec {
  id: string;
  repo: string;
  revision: string;
  dtype: 'q8' | 'int8';
  english: boolean;
  /** openai/whisper README.md@0033c7ff's table; none stated for distil-large-v3. */
  parameters?: string;
  note?: string;
  license?: string;
  /** What `hf:` installs for the dtype (weights, config and tokenizer files), from public pin lists; see WHISPER_SIZES. */
  size: DiskSize;
}

/**
 * Sizes of the files a Whisper entry installs. Every figure is a file size some public project
 * pins with its SHA-256 at the same repo and revision (found by code search, 2026-11-26); where
 * that project pinned the q8 (`_quantized`) files and we install int8, or pinned another
 * sibling's small files, the total is an estimate (docs/models.md, "Sizes"). int8 and q8 exports
 * of one repo differ by bytes: whisper-tiny's int8 encoder is 10,124,977 bytes, its q8 one
 * 10,124,990; their merged decoders are the same file (SHA-256 25e807a9…).
 */
/** config, generation_config, tokenizer_config and preprocessor_config of onnx-community/whisper-tiny@ff417702. */
const TINY_SMALL_FILES = 2_243 + 3_772 + 282_683 + 339;
const MULTILINGUAL_TOKENIZER = 2_480_466;
/** tokenizer.json of whisper-base.en and small.en (one public list pins both, same SHA-256 5eb60cec…). */
const ENGLISH_TOKENIZER = 2_405_679;
/** onnx-community/whisper-large-v3-turbo@360ebcde, q8: the seven files hf: installs, as a public manifest pins them. */
const TURBO_Q8 = 1_087_527_940;
const WHISPER_SIZES = {
  tiny: {
    bytes: 10_124_977 + 30_719_241 + MULTILINGUAL_TOKENIZER + TINY_SMALL_FILES,
    from: 'int8 encoder 10,124,977 and merged decoder 30,719,241 bytes (their SHA-256 pinned with these sizes by public projects), tokenizer.json 2,480,466, config, generation, tokenizer and preprocessor configs 2,243 + 3,772 + 282,683 + 339, at ff417702',
  },
  baseEn: {
    bytes: 23_201_297 + 53_692_803 + ENGLISH_TOKENIZER + TINY_SMALL_FILES,
    from: "int8 encoder 23,201,297 and merged decoder 53,692,803 bytes and tokenizer.json 2,405,679 at 51eefc0a (a public pin list with their SHA-256); config files as whisper-tiny's",
    estimated: true,
  },
  small: {
    bytes: 92_326_160 + 156_750_845 + MULTILINGUAL_TOKENIZER + 2_227 + 3_893 + 339 + 282_683,
    from: "the q8 files of the same revision 36050c46 as a public pin list sizes them (encoder 92,326,160, merged decoder 156,750,845); int8 differs by bytes; tokenizer_config as whisper-tiny's",
    estimated: true,
  },
  smallEn: {
    bytes: 92_326_127 + 156_750_076 + ENGLISH_TOKENIZER + 2_227 + 3_893 + 339 + 282_683,
    from: "int8 encoder 92,326,127 and merged decoder 156,750,076 bytes at 482fb8ba (a public pin list with their SHA-256), tokenizer.json 2,405,679; config files as whisper-small's",
    estimated: true,
  },
  medium: {
    bytes: 313_154_567 + 672_556_229 + 3_930_494 + 1_389 + 3_780 + 339 + 282_713,
    from: 'the q8 files of the same revision d3978248 as a public pin list sizes them (encoder 313,154,567, merged decoder 672,556,229, tokenizer and configs); int8 differs by bytes',
    estimated: true,
  },
  mediumEn: {
    bytes: 313_154_567 + 672_556_229 + 3_930_494 + 1_389 + 3_780 + 339 + 282_713,
    from: "as whisper-medium's q8 files (onnx-community/whisper-medium-ONNX@d3978248, same architecture); this Xenova export was not sized by any public source found",
    estimated: true,
  },
  largeV3: {
    bytes: Math.round((TURBO_Q8 * 1550) / 809),
    from: "whisper-large-v3-turbo's q8 files (1,087,527,940 bytes for 809 M parameters) scaled to large-v3's 1550 M parameters; rough",
    estimated: true,
  },
  turbo: {
    bytes: TURBO_Q8,
    from: 'the seven q8 files of the same revision 360ebcde as a public manifest pins them with their SHA-256; int8 differs by bytes',
    estimated: true,
  },
  distilLargeV3: {
    bytes: TURBO_Q8,
    from: "whisper-large-v3-turbo's q8 files: the same 32-layer large-v3 encoder, and a 2-layer decoder where turbo has 4, so an upper bound",
    estimated: true,
  },
} satisfies Record<string, DiskSize>;

/**
 * Revisions: /work/pins/pins.json (onnx-community ones from one service config that pins each repo's
 * commit per quantisation; Xenova/whisper-medium.en from the same). distil-large-v3: the hub page
 * distil-whisper/distil-large-v3/tree/967d2be6…/onnx (stored copy), which lists the *_quantized files.
 * dtype: the weight files those sources list (onnx-community: *_int8; Xenova, distil: *_quantized).
 */
const WHISPER: WhisperSpec[] = [
  {
    id: 'whisper-tiny',
    repo: 'onnx-community/whisper-tiny',
    revision: 'ff4177021cc41f7db950912b73ea4fdf7d01d8e7',
    dtype: 'int8',
    english: false,
    parameters: '39 M',
    size: WHISPER_SIZES.tiny,
  },
  {
    id: 'whisper-base.en',
    repo: 'onnx-community/whisper-base.en',
    revision: '51eefc0af78b103839eda9e7e4f4186acc6517fe',
    dtype: 'int8',
    english: true,
    parameters: '74 M',
    size: WHISPER_SIZES.baseEn,
  },
  {
    id: 'whisper-small',
    repo: 'onnx-community/whisper-small',
    revision: '36050c46d777d46dc4b5f43f6d90574fc38f8732',
    dtype: 'int8',
    english: false,
    parameters: '244 M',
    size: WHISPER_SIZES.small,
  },
  {
    id: 'whisper-small.en',
    repo: 'onnx-community/whisper-small.en',
    revision: '482fb8ba081b6e906f92efe103622316b2a0cc69',
    dtype: 'int8',
    english: true,
    parameters: '244 M',
    size: WHISPER_SIZES.smallEn,
  },
  {
    id: 'whisper-medium',
    repo: 'onnx-community/whisper-medium-ONNX',
    revision: 'd3978248a6b5de6df7ec29ddfbde3993845fa806',
    dtype: 'int8',
    english: false,
    parameters: '769 M',
    size: WHISPER_SIZES.medium,
  },
  {
    id: 'whisper-medium.en',
    repo: 'Xenova/whisper-medium.en',
    revision: '4fbcf6e6deb6b1af698e6925bfe00730bd4be715',
    dtype: 'q8',
    english: true,
    parameters: '769 M',
    size: WHISPER_SIZES.mediumEn,
  },
  {
    id: 'whisper-large-v3',
    repo: 'onnx-community/whisper-large-v3-ONNX',
    revision: '3b6257ad5e67aa523c7c07f4fea04d445eecc4a6',
    dtype: 'int8',
    english: false,
    parameters: '1550 M',
    note: '128 mel bins and the 100-language vocabulary (Cantonese added)',
    size: WHISPER_SIZES.largeV3,
  },
  {
    id: 'whisper-large-v3-turbo',
    repo: 'onnx-community/whisper-large-v3-turbo',
    revision: '360ebcde2559d60bb474678be3c1de9ef347d01a',
    dtype: 'int8',
    english: false,
    parameters: '809 M',
    note: 'an optimized large-v3: faster, with a minimal loss of accuracy (openai/whisper README)',
    size: WHISPER_SIZES.turbo,
  },
  {
    id: 'distil-large-v3',
    repo: 'distil-whisper/distil-large-v3',
    revision: '967d2be658d3a9b0a3164b422050927b80fd5b25',
    dtype: 'q8',
    english: true,
    note: 'Distil-Whisper, distilled from large-v3',
    license: 'MIT (distil-whisper/distil-large-v3 model card)',
    size: WHISPER_SIZES.distilLargeV3,
  },
];

function whisperEntry(spec: WhisperSpec): ManifestEntry {
  const languages = spec.english ? ['en'] : spec.id.includes('large-v3') ? WHISPER_100 : WHISPER_99;
  const facts = [
    spec.parameters ? `${spec.parameters} parameters` : '',
    spec.english ? 'English only' : `multilingual: transcribes ${languages.length} languages and translates them to English`,
    spec.note ?? '',
  ].filter(Boolean);
  return {
    id: spec.id,
    task: 'speech-to-text',
    engine: 'transformers-asr',
    description: `Whisper ${spec.id.replace(/^whisper-/, '')} (${facts.join('; ')}) on transformers.js, ${spec.dtype} weights from ${spec.repo}`,
    license: spec.license ?? WHISPER_LICENSE,
    languages,
    realWeightsRunHere: false,
    diskSize: spec.size,
    options: { dtype: spec.dtype },
    hubRepo: { repo: spec.repo, revision: spec.revision },
  };
}

/**
 * English to and from the languages with the most speakers among those whose opus-mt model Xenova
 * converted to ONNX, plus Japanese, Korean, Turkish and Polish into English (their reverse models
 * are missing or broken: Xenova/opus-mt-en-jap is a Bible-only model whose tokenizer a public
 * project had to patch). Each repo was found loaded by at least ten public projects (an
 * exact-string code search per repo, 2026-11-26); how often each is downloaded could not be read
 * offline, so this is not a ranking. en-es, es-en, en-fr and fr-en are in models/models.json.
 */
export const OPUS_MT_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['en', 'de'],
  ['de', 'en'],
  ['en', 'it'],
  ['it', 'en'],
  ['en', 'ru'],
  ['ru', 'en'],
  ['en', 'zh'],
  ['zh', 'en'],
  ['en', 'ar'],
  ['ar', 'en'],
  ['en', 'hi'],
  ['hi', 'en'],
  ['en', 'nl'],
  ['nl', 'en'],
  ['en', 'uk'],
  ['uk', 'en'],
  ['ja', 'en'],
  ['ko', 'en'],
  ['tr', 'en'],
  ['pl', 'en'],
];

const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: 'English',
  de: 'German',
  it: 'Italian',
  ru: 'Russian',
  zh: 'Chinese',
  ar: 'Arabic',
  hi: 'Hindi',
  nl: 'Dutch',
  uk: 'Ukrainian',
  ja: 'Japanese',
  ko: 'Korean',
  tr: 'Turkish',
  pl: 'Polish',
};

/**
 * Pairs whose six files (config, generation config, tokenizer, tokenizer config, q8 encoder and
 * merged decoder) two public pin lists give with size and SHA-256 at a commit, which the entry
 * pins instead of "main". en-es, es-en, en-fr and fr-en (models/models.json) are sized from the
 * same lists.
 */
const OPUS_MT_PINNED: Readonly<Record<string, { revision: string; bytes: number }>> = {
  'en-de': { revision: '1ca130c44c4c5441ef16d48aae521a424ab644f7', bytes: 1_411 + 293 + 5_498_450 + 280 + 49_366_942 + 56_652_404 },
  'en-zh': { revision: '046f55aec303cdee3e0318604406d4df20f1e8ea', bytes: 1_503 + 293 + 6_380_952 + 282 + 52_899_742 + 60_212_804 },
  'de-en': { revision: '399dfd68706739fffd503f876093e455ae268a06', bytes: 1_376 + 293 + 5_498_450 + 280 + 49_366_942 + 56_652_404 },
  'it-en': { revision: 'fd0b89b9c052adc1f2f64152f555aa17353728be', bytes: 1_376 + 293 + 7_942_314 + 280 + 60_773_278 + 68_147_852 },
  'nl-en': { revision: '82c42d95d1508037cbe7172d85fd4e940a2f3584', bytes: 1_376 + 293 + 6_433_167 + 280 + 53_937_566 + 61_258_736 },
  'ru-en': { revision: 'afe8c6c738ec81b6d033fd8f44f9678a639a7c67', bytes: 1_376 + 293 + 7_205_388 + 280 + 51_628_446 + 58_931_576 },
  'pl-en': { revision: 'aeaf0e003b045248c28a559a5ce6027b54ebdaba', bytes: 1_376 + 293 + 6_118_576 + 280 + 52_095_390 + 59_402_168 },
};
/** The four pairs of models/models.json, sized by the same lists (only for the estimate below). */
const OPUS_MT_SHIPPED_BYTES = [119_377_271, 119_377_236, 113_111_733, 113_111_733];
/** A commit a public project pins for Xenova/opus-mt-en-it (its files were not sized there). */
const OPUS_MT_EN_IT_REVISION = '075406e3c8c2c30634d4a1bd8f00c21d9e162011';

/**
 * Every opus-mt model is the same Marian transformer (6 + 6 layers, 512 wide) and differs only by
 * its vocabulary, so an unsized pair is estimated as the median of the sized ones (111.5-136.9 MB).
 */
function opusMtEstimate(): number {
  const sizes = [...Object.values(OPUS_MT_PINNED).map((pin) => pin.bytes), ...OPUS_MT_SHIPPED_BYTES].sort((a, b) => a - b);
  return sizes[Math.floor(sizes.length / 2)] as number;
}

function opusMtEntry([source, target]: readonly [string, string]): ManifestEntry {
  const repo = `Xenova/opus-mt-${source}-${target}`;
  const pin = OPUS_MT_PINNED[`${source}-${target}`];
  const revision = pin?.revision ?? (source === 'en' && target === 'it' ? OPUS_MT_EN_IT_REVISION : 'main');
  const diskSize: DiskSize = pin
    ? { bytes: pin.bytes, from: `the six files hf: installs, as public pin lists size them with their SHA-256 at ${pin.revision.slice(0, 8)}` }
    : {
        bytes: opusMtEstimate(),
        from: 'the median of the opus-mt pairs public pin lists size (same architecture, another vocabulary)',
        estimated: true,
      };
  return {
    id: `opus-mt-${source}-${target}`,
    task: 'translation',
    engine: 'transformers-translation',
    description: `Helsinki-NLP OPUS-MT ${LANGUAGE_NAMES[source]} to ${LANGUAGE_NAMES[target]} (MarianMT) on transformers.js, 8-bit quantized encoder and merged decoder from ${repo}`,
    license: OPUS_MT_LICENSE,
    realWeightsRunHere: false,
    diskSize,
    options: { family: 'marian', source, target, dtype: 'q8' },
    // A commit where a public source names one; otherwise "main", recorded at install.
    hubRepo: { repo, revision },
  };
}

const M2M100: ManifestEntry = {
  id: 'm2m100-418M',
  task: 'translation',
  engine: 'transformers-translation',
  description:
    'Meta M2M100 418M: one model translating directly between any two of 100 languages (its __xx__ language tokens), on transformers.js, 8-bit quantized from Xenova/m2m100_418M',
  license: 'MIT (facebook/m2m100_418M model card)',
  realWeightsRunHere: false,
  // The same packaging script sizes the six files hf: installs at that commit (config 908,
  // generation config 233, tokenizer 7,988,527, tokenizer config 1,813, q8 encoder and decoder).
  diskSize: {
    bytes: 908 + 233 + 7_988_527 + 1_813 + 287_856_370 + 344_128_178,
    from: 'the six files hf: installs, as a public packaging script sizes them at 9c374f0b (the weights with their SHA-256)',
  },
  options: { family: 'm2m100', dtype: 'q8' },
  // The commit a public packaging script pins for Xenova/m2m100_418M (it lists the same q8 files).
  hubRepo: { repo: 'Xenova/m2m100_418M', revision: '9c374f0b7aca709787cea97b047bfbbd1559d177' },
};

const EMBEDDINGS: ManifestEntry[] = [
  {
    id: 'bge-small-en-v1.5',
    task: 'embeddings',
    engine: 'sentence-embedding',
    description:
      'BAAI bge-small-en-v1.5: English sentence embeddings, 384 dimensions, CLS pooling (as its sentence-transformers config says), 8-bit quantized from Xenova/bge-small-en-v1.5',
    license: 'MIT (BAAI/bge-small-en-v1.5 model card)',
    languages: ['en'],
    realWeightsRunHere: false,
    diskSize: {
      bytes: 683 + 711_396 + 366 + 34_014_426,
      from: 'config.json 683, tokenizer.json 711,396, tokenizer_config.json 366 and onnx/model_quantized.onnx 34,014,426 bytes as public pin lists give them (with SHA-256) at commit ea104dac, not at b7ad92a',
      estimated: true,
    },
    options: { dtype: 'q8', pooling: 'cls' },
    // The commit the hub's file page of Xenova/bge-small-en-v1.5 names for its onnx/ folder (stored copy).
    hubRepo: { repo: 'Xenova/bge-small-en-v1.5', revision: 'b7ad92a45a298ac620504489f28ecb6ac66ad67c' },
  },
  {
    id: 'multilingual-e5-small',
    task: 'embeddings',
    engine: 'sentence-embedding',
    description:
      'intfloat multilingual-e5-small: sentence embeddings for the languages of its XLM-RoBERTa vocabulary, 384 dimensions, mean pooling; trained on "query: " and "passage: " texts, so each request says which it sends (input_type; passage by default). 8-bit quantized from Xenova/multilingual-e5-small',
    license: 'see model card (intfloat/multilingual-e5-small; a byte-identical mirror of the Xenova conversion states MIT)',
    languages: ['mul'],
    realWeightsRunHere: false,
    // Public pin lists give these four files' sizes beside the same SHA-256 at this commit; stated
    // rather than pinned, as the tests' hub mirror serves other bytes under these names.
    diskSize: {
      bytes: 658 + 17_082_730 + 443 + 118_308_185,
      from: 'config.json 658, tokenizer.json 17,082,730, tokenizer_config.json 443, onnx/model_quantized.onnx 118,308,185 bytes, as public pin lists give them with the SHA-256 pinned here',
    },
    options: { dtype: 'q8', prefixes: { query: 'query: ', passage: 'passage: ' } },
    // The commit and SHA-256s a byte-identical mirror (ChatPanel/multilingual-e5-small) states for its upstream.
    source: {
      type: 'huggingface',
      repo: 'Xenova/multilingual-e5-small',
      revision: '761b726dd34fb83930e26aab4e9ac3899aa1fa78',
      files: [
        { path: 'config.json', sha256: 'cb99455288675345e1a4f411438d5d0adbba5fbd3a67ea4fb03c015433b996c1' },
        { path: 'tokenizer.json', sha256: '0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39' },
        { path: 'tokenizer_config.json', sha256: 'a1d6bc8734a6f635dc158508bef000f8e2e5a759c7d92f984b2c86e5ff53425b' },
        { path: 'onnx/model_quantized.onnx', sha256: 'f80102d3f2a1229f387d3c81909990d8945513e347b0eab049f7de3c6f98c193' },
      ],
    },
  },
];

/** Catalogue files by name (models/catalog/<name>.json) with their entries. */
export function hubCatalogs(): Record<string, ManifestEntry[]> {
  return {
    'speech-to-text': WHISPER.map(whisperEntry),
    translation: [...OPUS_MT_PAIRS.map(opusMtEntry), M2M100],
    embeddings: EMBEDDINGS,
  };
}
