/**
 * Piper voices of a hub repo, for `hf:`: a voice is a `<name>.onnx` with its `<name>.onnx.json`
 * beside it, anywhere in the tree, so a single-voice repo and rhasspy/piper-voices
 * (`en/en_US/joe/medium/en_US-joe-medium.onnx`, hundreds of voices) read alike. The chosen voice's
 * `.onnx`, `.onnx.json` and the `MODEL_CARD` beside them are installed flat into the model folder,
 * where the `piper` engine finds its only `.onnx`; its `.onnx.json` is read first, so a voice the
 * engine cannot speak (another phoneme type) is refused before 60 MB of weights are fetched.
 */
import { posix } from 'node:path';
import type { ManifestEntry, SourceFile } from '../manifest.js';
import { PiperConfigError, parsePiperVoiceConfig } from '../text-to-speech/piper-voice-config.js';
import { manifestFile, refuseUnverifiableWeights, type TreeEntry } from './hub-api.js';
import type { HubClient } from './hub-client.js';
import { checkShape, PiperVoiceJsonShape, type PiperVoiceJson } from './hub-json-shapes.js';
import { InstallError } from './install-errors.js';
import { stripControls } from './terminal-text.js';

export interface PiperVoiceFiles {
  /** `en_US-joe-medium`: the `.onnx` file's name without it; its path without it when two voices share a name. */
  name: string;
  onnx: string;
  config: string;
  /** rhasspy's `MODEL_CARD` beside the voice (its dataset and licence), when there is one. */
  card?: string;
}

/** What the entry says of where the voice came from. */
export interface PiperSource {
  repo: string;
  /** As the user named it. */
  revision: string;
  commit: string;
  /** The repo card's licence, when it states one. */
  license?: string;
}

/** Voices named in the "choose one" error; `--list-voices` prints them all. */
const NAMED_IN_ERROR = 10;

/** Letters without their accents (`tugão` → `tugao`): voice keys are matched and made into ids through this. */
export function plainVoiceName(name: string): string {
  return name.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

/** The model id of a voice, as the catalogue names rhasspy's: `piper-<key>`, accents dropped; undefined when that is no plain id. */
export function piperVoiceId(key: string): string | undefined {
  const id = `piper-${plainVoiceName(key)}`;
  return /^[A-Za-z0-9._-]+$/.test(id) ? id : undefined;
}

/** Every voice in the tree, by name. */
export function piperVoicesIn(files: ReadonlyMap<string, TreeEntry>): PiperVoiceFiles[] {
  const pairs = [...files.keys()].filter((path) => path.endsWith('.onnx') && files.has(`${path}.json`));
  const baseName = (path: string) => posix.basename(path, '.onnx');
  const count = new Map<string, number>();
  for (const path of pairs) count.set(baseName(path), (count.get(baseName(path)) ?? 0) + 1);
  return pairs
    .map((onnx) => {
      const card = posix.join(posix.dirname(onnx), 'MODEL_CARD');
      return {
        name: count.get(baseName(onnx)) === 1 ? baseName(onnx) : onnx.slice(0, -'.onnx'.length),
        onnx,
        config: `${onnx}.json`,
        ...(files.has(card) ? { card } : {}),
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The voice `wanted` names (its name, its `.onnx` path, accents or not), or the only one; else one
 * error line listing them. `spelled`: the repo as the commands it suggests name it (`hf:<repo>@<revision>`).
 */
export function pickVoice(repo: string, voices: readonly PiperVoiceFiles[], wanted: string | undefined, spelled = `hf:${repo}`): PiperVoiceFiles {
  if (voices.length === 0) throw noPiperVoice(repo);
  if (wanted === undefined) {
    if (voices.length === 1) return voices[0] as PiperVoiceFiles;
    throw new InstallError(`${repo} has ${voices.length} Piper voices; choose one with --voice <name> or ${spelled}:<name>: ${voiceList(spelled, voices)}`);
  }
  const key = plainVoiceName(wanted.replace(/\.onnx$/, ''));
  const found = voices.find((voice) => plainVoiceName(voice.name) === key || plainVoiceName(voice.onnx) === `${key}.onnx`);
  if (!found) throw new InstallError(`${repo} has no Piper voice "${wanted}"; it has ${voices.length}: ${voiceList(spelled, voices)}`);
  return found;
}

export function noPiperVoice(repo: string): InstallError {
  return new InstallError(`${repo} has no Piper voice (a <name>.onnx beside its <name>.onnx.json)`);
}

/** The first voices, and how to see the rest: an error line stays one readable line for a repo of hundreds. */
function voiceList(spelled: string, voices: readonly PiperVoiceFiles[]): string {
  const named = voices.slice(0, NAMED_IN_ERROR).map((voice) => voice.name);
  if (voices.length <= NAMED_IN_ERROR) return named.join(', ');
  return `${named.join(', ')}, … and ${voices.length - NAMED_IN_ERROR} more (all of them: npm run download-models -- ${spelled} --list-voices)`;
}

/** The manifest entry that installs `voice`, pinned to `source.commit`, its weights by the SHA-256 the hub publishes. */
export async function entryForPiperVoice(
  hub: HubClient,
  source: PiperSource,
  files: ReadonlyMap<string, TreeEntry>,
  voice: PiperVoiceFiles,
  id: string,
): Promise<ManifestEntry> {
  const { repo, commit } = source;
  const where = `${repo}: ${voice.config}`;
  const config = checkShape(PiperVoiceJsonShape, await hub.json(`/${repo}/resolve/${commit}/${voice.config}`), where);
  try {
    parsePiperVoiceConfig(config, where);
  } catch (error) {
    if (error instanceof PiperConfigError) throw new InstallError(error.message);
    throw error;
  }
  const flat = (path: string): SourceFile => {
    const file = manifestFile(files.get(path) as TreeEntry);
    const target = posix.basename(path);
    return target === path ? file : { ...file, target };
  };
  const weights = flat(voice.onnx);
  // The weights are what an attacker would swap; the hub keeps `.onnx` in LFS, which publishes their SHA-256.
  refuseUnverifiableWeights(repo, [weights]);
  const speakers = Object.entries(config.speaker_id_map ?? {})
    .sort(([, a], [, b]) => a - b)
    .map(([name]) => stripControls(name));
  const language = languageOf(config);
  const cardLicense = source.license === undefined ? 'see the model card of the hub repo' : stripControls(source.license);
  return {
    id,
    task: 'text-to-speech',
    engine: 'piper',
    description: stripControls(
      `Piper voice ${voice.name} (${describe(config, speakers.length)}) from ${repo}, installed by download-models hf:${repo}@${source.revision}`,
    ),
    license: voice.card ? `${cardLicense} (repo card); the voice's dataset: see MODEL_CARD, installed beside it` : cardLicense,
    ...(language ? { languages: [language] } : {}),
    ...(speakers.length > 1 ? { voices: speakers } : {}),
    source: { type: 'huggingface', repo, revision: commit, files: [weights, flat(voice.config), ...(voice.card ? [flat(voice.card)] : [])] },
  };
}

/** `en-US` from the voice's `language` (family and region, else its `en_US` code), when it makes a language code. */
function languageOf(config: PiperVoiceJson): string | undefined {
  const { family, region, code } = config.language ?? {};
  const candidate = family && region ? `${family}-${region}` : code?.replace('_', '-');
  return candidate !== undefined && /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(candidate) ? candidate : undefined;
}

/** "English, United States; medium quality; one speaker" from what the `.onnx.json` states. */
function describe(config: PiperVoiceJson, speakers: number): string {
  const { name_english: name, country_english: country } = config.language ?? {};
  const parts = [
    name ? (country ? `${name}, ${country}` : name) : undefined,
    config.audio?.quality ? `${config.audio.quality.replace('_', '-')} quality` : undefined,
    speakers > 1 ? `${speakers} speakers` : 'one speaker',
  ];
  return parts.filter((part) => part !== undefined).join('; ');
}
