/**
 * Catalogue entries for every voice of rhasspy/piper-voices, from its `voices.json`: one entry
 * per voice key (`en_US-lessac-medium`), every language and quality, the voice's `.onnx`,
 * `.onnx.json` and MODEL_CARD installed flat into its folder, each file sized and checked by the
 * size and MD5 voices.json publishes. A multi-speaker voice lists its speakers (speaker_id_map)
 * as the `voice` names it answers to, in speaker-id order. voices.json states no licence: each
 * voice's MODEL_CARD does, so the entry says to read it.
 */
import { piperVoiceId as plainPiperVoiceId } from '../../src/inference/install/piper-repo.js';
import type { ManifestEntry, SourceFile } from '../../src/inference/manifest.js';

/** One voice of voices.json, as piper-voices publishes it. */
export interface PiperVoice {
  key: string;
  name: string;
  language: { code: string; family: string; region: string; name_native: string; name_english: string; country_english?: string };
  quality: string;
  num_speakers: number;
  speaker_id_map: Record<string, number>;
  files: Record<string, { size_bytes: number; md5_digest: string }>;
  aliases?: string[];
}

export interface PiperCatalogOptions {
  repo: string;
  /** A commit, or a tag or branch: every file is pinned by its MD5 anyway. */
  revision: string;
  /** Ids the hand-written manifest already has (its voices are left to it). */
  skipIds?: ReadonlySet<string>;
  /** Dataset licences read from voices' MODEL_CARDs (byte-checked against voices.json's md5), by voice key. */
  datasetLicences?: Readonly<Record<string, string>>;
}

export const PIPER_LICENSE = 'see model card (MODEL_CARD, installed beside the voice; voices.json states no licence)';

/** The model id of a voice: `piper-<key>`, its letters stripped of accents (`tugão` → `tugao`) to stay a plain id; as `hf:<repo>:<voice>` names it. */
export function piperVoiceId(key: string): string {
  const id = plainPiperVoiceId(key);
  if (id === undefined) throw new Error(`voice key ${JSON.stringify(key)} does not make a plain model id`);
  return id;
}

export function piperVoiceEntries(voices: Record<string, PiperVoice>, options: PiperCatalogOptions): ManifestEntry[] {
  const entries: ManifestEntry[] = [];
  const ids = new Set<string>();
  for (const key of Object.keys(voices).sort()) {
    const voice = voices[key] as PiperVoice;
    if (voice.key !== key) throw new Error(`voices.json: entry ${key} has key ${voice.key}`);
    const id = piperVoiceId(key);
    if (options.skipIds?.has(id)) continue;
    if (ids.has(id)) throw new Error(`voices.json: two voices make the id ${id}`);
    ids.add(id);
    entries.push(voiceEntry(voice, id, options));
  }
  return entries;
}

function voiceEntry(voice: PiperVoice, id: string, options: PiperCatalogOptions): ManifestEntry {
  const { language } = voice;
  const files = Object.entries(voice.files).map(([path, file]) => sourceFile(voice.key, path, file));
  const onnx = files.filter((file) => file.path.endsWith('.onnx'));
  if (onnx.length !== 1 || !files.some((file) => file.path === `${onnx[0]?.path}.json`)) {
    throw new Error(`voices.json: ${voice.key} must list exactly one .onnx and its .onnx.json`);
  }
  const speakers = Object.entries(voice.speaker_id_map ?? {})
    .sort(([, a], [, b]) => a - b)
    .map(([name]) => name);
  const where = language.country_english ? `${language.name_english}, ${language.country_english}` : language.name_english;
  const who = voice.num_speakers > 1 ? `${voice.num_speakers} speakers` : 'one speaker';
  return {
    id,
    task: 'text-to-speech',
    engine: 'piper',
    description: `Piper voice ${voice.key}: ${where} (${language.name_native}), ${voice.quality.replace('_', '-')} quality, ${who}; VITS on onnxruntime-node with espeak-ng (WASM) phonemes`,
    license: options.datasetLicences?.[voice.key] ? `dataset: ${options.datasetLicences[voice.key]} (MODEL_CARD); see model card` : PIPER_LICENSE,
    languages: [`${language.family}-${language.region}`],
    realWeightsRunHere: false,
    ...(speakers.length > 1 ? { voices: speakers } : {}),
    source: { type: 'huggingface', repo: options.repo, revision: options.revision, files },
  };
}

function sourceFile(key: string, path: string, file: { size_bytes: number; md5_digest: string }): SourceFile {
  const name = path.split('/').at(-1) as string;
  if (!Number.isSafeInteger(file.size_bytes) || !/^[0-9a-f]{32}$/.test(file.md5_digest)) {
    throw new Error(`voices.json: ${key}: ${path} needs size_bytes and a 32-digit md5_digest`);
  }
  return { path, target: name, size: file.size_bytes, md5: file.md5_digest };
}
