/**
 * The hub models of the generated catalogue: Whisper sizes, opus-mt pairs, M2M100, embeddings.
 * Every revision, licence and hash here comes from a source named beside it (the commit that
 * changed this file says where each was read); nothing is guessed. Where no public source lists a
 * repo's files, the entry is a `hubRepo`: the files are read from the hub's tree at install and
 * checked against the SHA-256 the hub publishes. Where no commit was found, the revision is
 * "main" and the install records the commit it got.
 */
import type { ManifestEntry } from '../../src/inference/manifest.js';
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
}

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
  },
  {
    id: 'whisper-base.en',
    repo: 'onnx-community/whisper-base.en',
    revision: '51eefc0af78b103839eda9e7e4f4186acc6517fe',
    dtype: 'int8',
    english: true,
    parameters: '74 M',
  },
  {
    id: 'whisper-small',
    repo: 'onnx-community/whisper-small',
    revision: '36050c46d777d46dc4b5f43f6d90574fc38f8732',
    dtype: 'int8',
    english: false,
    parameters: '244 M',
  },
  {
    id: 'whisper-small.en',
    repo: 'onnx-community/whisper-small.en',
    revision: '482fb8ba081b6e906f92efe103622316b2a0cc69',
    dtype: 'int8',
    english: true,
    parameters: '244 M',
  },
  {
    id: 'whisper-medium',
    repo: 'onnx-community/whisper-medium-ONNX',
    revision: 'd3978248a6b5de6df7ec29ddfbde3993845fa806',
    dtype: 'int8',
    english: false,
    parameters: '769 M',
  },
  {
    id: 'whisper-medium.en',
    repo: 'Xenova/whisper-medium.en',
    revision: '4fbcf6e6deb6b1af698e6925bfe00730bd4be715',
    dtype: 'q8',
    english: true,
    parameters: '769 M',
  },
  {
    id: 'whisper-large-v3',
    repo: 'onnx-community/whisper-large-v3-ONNX',
    revision: '3b6257ad5e67aa523c7c07f4fea04d445eecc4a6',
    dtype: 'int8',
    english: false,
    parameters: '1550 M',
    note: '128 mel bins and the 100-language vocabulary (Cantonese added)',
  },
  {
    id: 'whisper-large-v3-turbo',
    repo: 'onnx-community/whisper-large-v3-turbo',
    revision: '360ebcde2559d60bb474678be3c1de9ef347d01a',
    dtype: 'int8',
    english: false,
    parameters: '809 M',
    note: 'an optimized large-v3: faster, with a minimal loss of accuracy (openai/whisper README)',
  },
  {
    id: 'distil-large-v3',
    repo: 'distil-whisper/distil-large-v3',
    revision: '967d2be658d3a9b0a3164b422050927b80fd5b25',
    dtype: 'q8',
    english: true,
    note: 'Distil-Whisper, distilled from large-v3',
    license: 'MIT (distil-whisper/distil-large-v3 model card)',
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

function opusMtEntry([source, target]: readonly [string, string]): ManifestEntry {
  const repo = `Xenova/opus-mt-${source}-${target}`;
  return {
    id: `opus-mt-${source}-${target}`,
    task: 'translation',
    engine: 'transformers-translation',
    description: `Helsinki-NLP OPUS-MT ${LANGUAGE_NAMES[source]} to ${LANGUAGE_NAMES[target]} (MarianMT) on transformers.js, 8-bit quantized encoder and merged decoder from ${repo}`,
    license: OPUS_MT_LICENSE,
    realWeightsRunHere: false,
    options: { family: 'marian', source, target, dtype: 'q8' },
    // No commit of these repos was found in any public source: "main", recorded at install.
    hubRepo: { repo, revision: 'main' },
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
