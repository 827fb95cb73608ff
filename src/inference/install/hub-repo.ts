/**
 * `hf:<owner>/<repo>[@revision][:voice]`: turns any compatible hub repo into a manifest entry. The
 * architecture comes from its config.json, the ONNX files for the dtype from its file tree
 * (transformers.js layout: `onnx/<part><suffix>.onnx`), and each file's SHA-256 from the hub's
 * LFS metadata. Small files the hub keeps in git (not LFS) have only a git blob id, so only
 * their size is pinned here; the installer checks their blob id and records the SHA-256 it computed.
 * A repo of Piper voices has no config.json: piper-repo.ts plans it.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { DTYPE_SUFFIX, type Dtype } from '../dtype.js';
import { ManifestError, parseManifest, type ManifestEntry } from '../manifest.js';
import type { Task } from '../tasks.js';
import { manifestFile, readRevision, readTree, refuseUnverifiableWeights, type TreeEntry } from './hub-api.js';
import type { HubClient } from './hub-client.js';
import { checkShape, PoolingConfigShape, RepoConfigShape, SentenceTransformersConfigShape, TokenizerConfigShape, type RepoConfig } from './hub-json-shapes.js';
import { InstallError } from './install-errors.js';
import { entryForPiperVoice, noPiperVoice, pickVoice, piperVoicesIn, piperVoiceId, type PiperVoiceFiles } from './piper-repo.js';
import { stripControls } from './terminal-text.js';

const HUB_PREFIX = 'hf:';

export interface HubRepoRef {
  repo: string;
  /** As the user named it (default `main`); the entry pins the commit the hub resolved it to. */
  revision: string;
  /** The Piper voice of a repo of many (`hf:rhasspy/piper-voices:en_US-joe-medium`, or `--voice`). */
  voice?: string;
}

/** A JSON file of the repo checked against its shape, or undefined when the repo has no such file. */
type ReadJson = <S extends TSchema>(path: string, schema: S) => Promise<Static<S> | undefined>;

/** What an architecture needs: the engine, its options, and the ONNX parts transformers.js loads. */
interface Plan {
  task: Task;
  engine: string;
  options: Record<string, unknown>;
  parts: string[];
  /** Config and tokenizer files the engine reads; `required` ones must be in the repo. */
  required: string[];
  optional: string[];
  /** Data files the engine reads, pinned like the weights (Kokoro's voices). */
  data?: string[];
}

const SUPPORTED_ARCHITECTURES =
  'supported: WhisperForConditionalGeneration (speech-to-text), MarianMTModel and M2M100ForConditionalGeneration incl. NLLB (translation), ' +
  'BERT-family *ForSequenceClassification (text-classification; NLI heads as zero-shot), sentence-transformers and bare BERT-family encoders with mean or CLS pooling (embeddings), ' +
  'StyleTextToSpeech2Model (Kokoro, text-to-speech); or, without config.json, Piper voices (<name>.onnx + <name>.onnx.json, text-to-speech)';

/** Without --dtype: the 8-bit weights the shipped catalogue uses when the repo has them, else full precision. */
const AUTO_DTYPES: readonly Dtype[] = ['q8', 'fp32'];

const CLASSIFIER_TYPES = new Set([
  'bert',
  'distilbert',
  'roberta',
  'xlm-roberta',
  'mobilebert',
  'electra',
  'deberta',
  'deberta-v2',
  'albert',
  'camembert',
  'mpnet',
]);
const TOKENIZER = ['tokenizer.json', 'tokenizer_config.json'];

export function isHubRef(arg: string): boolean {
  return arg.startsWith(HUB_PREFIX);
}

/** A voice is named after the revision: neither a repo name nor a git ref holds `:`. Voice keys may hold accented letters (`tugão`). */
export function parseHubRef(arg: string): HubRepoRef {
  const match = /^hf:([A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*)(?:@([A-Za-z0-9][A-Za-z0-9._/-]*))?(?::([\p{L}\p{N}][\p{L}\p{N}._/-]*))?$/u.exec(
    arg,
  );
  if (!match) throw new InstallError(`${arg}: expected hf:<owner>/<repo>, hf:<owner>/<repo>@<revision>, optionally followed by :<voice>`);
  return { repo: match[1] as string, revision: match[2] ?? 'main', ...(match[3] ? { voice: match[3] } : {}) };
}

/** The default model id: `piper-<voice>` for a named voice (as the catalogue names rhasspy's), else the repo name, lower-cased. */
export function defaultId(ref: HubRepoRef): string {
  if (ref.voice === undefined) return (ref.repo.split('/')[1] as string).toLowerCase();
  const voice =
    ref.voice
      .split('/')
      .at(-1)
      ?.replace(/\.onnx$/, '') ?? '';
  return piperVoiceId(voice) ?? voice;
}

/** The Piper voices of the repo at the revision (`--list-voices`). */
export async function readHubVoices(hub: HubClient, ref: HubRepoRef): Promise<PiperVoiceFiles[]> {
  const { commit } = await readRevision(hub, ref.repo, ref.revision);
  const voices = piperVoicesIn(await readTree(hub, ref.repo, commit));
  if (voices.length === 0) throw noPiperVoice(ref.repo);
  return voices;
}

/** Asks the hub about the repo and returns the manifest entry that installs it, pinned to the resolved commit. */
export async function entryForHubRepo(hub: HubClient, ref: HubRepoRef, options: { id: string; dtype?: Dtype }): Promise<ManifestEntry> {
  const { repo } = ref;
  const info = await readRevision(hub, repo, ref.revision);
  const { commit } = info;
  const files = await readTree(hub, repo, commit);
  const voices = piperVoicesIn(files);
  if (ref.voice !== undefined || (!files.has('config.json') && voices.length > 0)) {
    if (options.dtype !== undefined) throw new InstallError(`${repo}: --dtype picks the weights of a transformers repo; a Piper voice has one .onnx`);
    const voice = pickVoice(repo, voices, ref.voice, `hf:${repo}${ref.revision === 'main' ? '' : `@${ref.revision}`}`);
    return checked(await entryForPiperVoice(hub, { repo, revision: ref.revision, ...info }, files, voice, options.id), repo);
  }
  const readJson: ReadJson = async (path, schema) =>
    files.has(path) ? checkShape(schema, await hub.json(`/${repo}/resolve/${commit}/${path}`), `${repo}: ${path}`) : undefined;

  const config = await readJson('config.json', RepoConfigShape);
  if (!config) throw new InstallError(`${repo} has no config.json and no Piper voice: not a repo this installer reads (${SUPPORTED_ARCHITECTURES})`);
  const plan = await planFor(repo, config, files, readJson);
  const onnx = [...files.keys()].filter((path) => /^onnx\/[^/]+\.onnx$/.test(path));
  if (onnx.length === 0) {
    throw new InstallError(`${repo} has no ONNX files (onnx/*.onnx); this server does not convert models: pick a repo with an ONNX export`);
  }
  const dtype = chooseDtype(repo, plan.parts, files, options.dtype);
  const missing = plan.required.filter((path) => !files.has(path));
  if (missing.length > 0) throw new InstallError(`${repo} lacks ${missing.join(', ')}, which its engine needs`);

  const modelFiles = plan.parts.flatMap((part) => {
    const model = `onnx/${part}${DTYPE_SUFFIX[dtype]}.onnx`;
    // Weights over 2 GB live beside the graph as external data (model.onnx_data, _data_1…).
    // Matched exactly: a tree path is the hub's word, and `onnx/model.onnx_data/../..` must not pass.
    return [
      model,
      ...[...files.keys()].filter((path) => path === `${model}_data` || (/^_data_\d+$/.test(path.slice(model.length)) && path.startsWith(model))).sort(),
    ];
  });
  const weightFiles = [...modelFiles, ...(plan.data ?? [])];
  // Weights are what an attacker would swap; the hub keeps them in LFS, which publishes their SHA-256.
  refuseUnverifiableWeights(
    repo,
    weightFiles.map((path) => manifestFile(files.get(path) as TreeEntry)),
  );
  const paths = [...plan.required, ...plan.optional.filter((path) => files.has(path)), ...weightFiles];
  // Kept in the entry and shown by --list and GET /v1/models: no control characters from the hub.
  const license = info.license === undefined ? 'see the model card of the hub repo' : stripControls(info.license);
  const entry: ManifestEntry = {
    id: options.id,
    task: plan.task,
    engine: plan.engine,
    description: stripControls(
      `${repo} from the hub (${config.architectures?.[0] ?? config.model_type}, ${dtype}), installed by download-models hf:${repo}@${ref.revision}`,
    ),
    license,
    source: { type: 'huggingface', repo, revision: commit, files: paths.map((path) => manifestFile(files.get(path) as TreeEntry)) },
    options: { ...plan.options, dtype },
  };
  return checked(entry, repo);
}

/** The checks the server applies at start (safe relative paths, sha256 format), before any download. */
function checked(entry: ManifestEntry, repo: string): ManifestEntry {
  try {
    parseManifest({ models: [entry] }, `hf:${repo}`);
  } catch (error) {
    if (error instanceof ManifestError) throw new InstallError(error.message);
    throw error;
  }
  return entry;
}

async function planFor(repo: string, config: RepoConfig, files: ReadonlyMap<string, TreeEntry>, readJson: ReadJson): Promise<Plan> {
  const architecture = config.architectures?.[0] ?? '';
  const type = config.model_type ?? '';
  const seq2seq = ['encoder_model', 'decoder_model_merged'];
  if (architecture === 'WhisperForConditionalGeneration' || type === 'whisper') {
    return {
      task: 'speech-to-text',
      engine: 'transformers-asr',
      options: {},
      parts: seq2seq,
      required: ['config.json', 'generation_config.json', 'preprocessor_config.json', ...TOKENIZER],
      optional: [],
    };
  }
  if (architecture === 'MarianMTModel' || type === 'marian') {
    const pair = await marianPair(repo, readJson);
    return {
      task: 'translation',
      engine: 'transformers-translation',
      options: { family: 'marian', ...pair },
      parts: seq2seq,
      required: ['config.json', ...TOKENIZER],
      optional: ['generation_config.json'],
    };
  }
  if (architecture === 'M2M100ForConditionalGeneration' || type === 'm2m_100') {
    const tokenizer = await readJson('tokenizer_config.json', TokenizerConfigShape);
    const family = /nllb/i.test(tokenizer?.tokenizer_class ?? '') ? 'nllb' : 'm2m100';
    return {
      task: 'translation',
      engine: 'transformers-translation',
      options: { family },
      parts: seq2seq,
      required: ['config.json', ...TOKENIZER],
      optional: ['generation_config.json'],
    };
  }
  if (architecture.endsWith('ForSequenceClassification') && CLASSIFIER_TYPES.has(type)) {
    const labels = Object.values(config.id2label ?? {}).map((label) => label.toLowerCase());
    const nli = labels.includes('entailment') && labels.includes('contradiction');
    return {
      task: 'text-classification',
      engine: nli ? 'transformers-zero-shot' : 'transformers-text-classification',
      options: {},
      parts: ['model'],
      required: ['config.json', ...TOKENIZER],
      optional: [],
    };
  }
  // A bare encoder (BertModel…) exported for feature extraction, as transformers.js conversions of
  // sentence-transformers repos ship it, often without modules.json: mean pooling unless the
  // repo's pooling config says otherwise.
  if (CLASSIFIER_TYPES.has(type) && (files.has('modules.json') || /^[A-Za-z]+Model$/.test(architecture))) {
    const options = { ...(await embeddingPooling(repo, readJson)), ...(await embeddingPrefixes(readJson)) };
    return { task: 'embeddings', engine: 'sentence-embedding', options, parts: ['model'], required: ['config.json', ...TOKENIZER], optional: [] };
  }
  // Kokoro (onnx-community/Kokoro-82M-v1.0-ONNX): its config.json names only the model type.
  if (architecture === 'StyleTextToSpeech2Model' || type === 'style_text_to_speech_2') {
    const voices = [...files.keys()].filter((path) => /^voices\/[^/]+\.bin$/.test(path)).sort();
    if (voices.length === 0) throw new InstallError(`${repo} has no voices (voices/*.bin), which Kokoro needs`);
    return {
      task: 'text-to-speech',
      engine: 'kokoro',
      options: {},
      parts: ['model'],
      required: ['config.json', 'tokenizer.json'],
      optional: ['tokenizer_config.json'],
      data: voices,
    };
  }
  throw new InstallError(`${repo}: unsupported architecture ${architecture || type || '(none in config.json)'}; ${SUPPORTED_ARCHITECTURES}`);
}

/** Mean pooling (the default) or CLS (bge), as the repo's 1_Pooling/config.json says; any other pooling is refused. */
async function embeddingPooling(repo: string, readJson: ReadJson): Promise<{ pooling?: 'cls' }> {
  const pooling = await readJson('1_Pooling/config.json', PoolingConfigShape);
  if (!pooling || pooling.pooling_mode_mean_tokens === true) return {};
  const modes = Object.keys(pooling).filter((key) => key.startsWith('pooling_mode_') && pooling[key] === true);
  if (modes.length === 1 && modes[0] === 'pooling_mode_cls_token') return { pooling: 'cls' };
  throw new InstallError(`${repo}: sentence embeddings with ${modes.join(' + ') || 'unknown pooling'} are not served (mean or CLS pooling only)`);
}

/** The query and passage prompts a sentence-transformers repo names in its config (multilingual-e5: "query: ", "passage: "). */
async function embeddingPrefixes(readJson: ReadJson): Promise<{ prefixes?: { query: string; passage: string } }> {
  const prompts = (await readJson('config_sentence_transformers.json', SentenceTransformersConfigShape))?.prompts;
  const { query, passage } = prompts ?? {};
  return typeof query === 'string' && typeof passage === 'string' && (query !== '' || passage !== '') ? { prefixes: { query, passage } } : {};
}

/** A Marian model is one pair: its tokenizer_config.json names it (source_lang, target_lang), else the opus-mt repo name does. */
async function marianPair(repo: string, readJson: ReadJson): Promise<{ source: string; target: string }> {
  const code = /^[a-z]{2,3}$/;
  const tokenizer = await readJson('tokenizer_config.json', TokenizerConfigShape);
  const { source_lang: source, target_lang: target } = tokenizer ?? {};
  if (typeof source === 'string' && typeof target === 'string' && code.test(source) && code.test(target)) return { source, target };
  const pair = /opus-mt-(?:tc-big-)?([a-z]{2,3})-([a-z]{2,3})$/.exec(repo.split('/')[1] as string);
  if (!pair)
    throw new InstallError(
      `${repo}: cannot tell the Marian language pair (no source_lang/target_lang in tokenizer_config.json, no opus-mt-<source>-<target> name)`,
    );
  return { source: pair[1] as string, target: pair[2] as string };
}

function chooseDtype(repo: string, parts: readonly string[], files: ReadonlyMap<string, TreeEntry>, requested: Dtype | undefined): Dtype {
  const complete = (dtype: Dtype) => parts.every((part) => files.has(`onnx/${part}${DTYPE_SUFFIX[dtype]}.onnx`));
  const candidates = requested ? [requested] : AUTO_DTYPES;
  const found = candidates.find(complete);
  if (found) return found;
  const available = (Object.keys(DTYPE_SUFFIX) as Dtype[]).filter(complete);
  const wanted = parts.map((part) => `onnx/${part}${DTYPE_SUFFIX[candidates[0] as Dtype]}.onnx`).join(', ');
  throw new InstallError(
    `${repo} has no ${candidates.join(' or ')} ONNX weights (${wanted})` + (available.length > 0 ? `; it has: ${available.join(', ')} (pass --dtype)` : ''),
  );
}
