/**
 * The Piper voice's `.onnx.json`: it, not code, decides the sample rate, the espeak voice, the
 * phoneme → id map and the default noise/length scales.
 */
import { BOS, EOS, PAD } from './piper-phoneme-ids.js';

export interface PiperVoiceConfig {
  sampleRate: number;
  /** espeak-ng voice/language for phonemisation, e.g. `en-us`. */
  espeakVoice: string;
  phonemeIdMap: ReadonlyMap<string, readonly number[]>;
  noiseScale: number;
  lengthScale: number;
  noiseW: number;
  /** Named speakers of a multi-speaker voice (empty for single-speaker voices). */
  speakers: ReadonlyMap<string, number>;
}

export class PiperConfigError extends Error {
  override name = 'PiperConfigError';
}

export function parsePiperVoiceConfig(raw: unknown, origin = 'voice config'): PiperVoiceConfig {
  const json = raw as {
    audio?: { sample_rate?: unknown };
    espeak?: { voice?: unknown };
    phoneme_type?: unknown;
    phoneme_id_map?: Record<string, unknown>;
    inference?: { noise_scale?: unknown; length_scale?: unknown; noise_w?: unknown };
    speaker_id_map?: Record<string, unknown>;
  };
  const sampleRate = json?.audio?.sample_rate;
  if (typeof sampleRate !== 'number' || !Number.isInteger(sampleRate) || sampleRate <= 0) {
    throw new PiperConfigError(`${origin}: audio.sample_rate must be a positive integer`);
  }
  if (json.phoneme_type !== undefined && json.phoneme_type !== 'espeak') {
    throw new PiperConfigError(`${origin}: phoneme_type "${String(json.phoneme_type)}" is not supported (only espeak)`);
  }
  const espeakVoice = json.espeak?.voice;
  if (typeof espeakVoice !== 'string' || espeakVoice === '') {
    throw new PiperConfigError(`${origin}: espeak.voice must be a non-empty string`);
  }
  const phonemeIdMap = new Map<string, number[]>();
  for (const [phoneme, ids] of Object.entries(json.phoneme_id_map ?? {})) {
    if (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id) && id >= 0)) {
      throw new PiperConfigError(`${origin}: phoneme_id_map["${phoneme}"] must be an array of ids`);
    }
    phonemeIdMap.set(phoneme, ids as number[]);
  }
  for (const marker of [BOS, EOS, PAD]) {
    if (!phonemeIdMap.has(marker)) throw new PiperConfigError(`${origin}: phoneme_id_map lacks "${marker}"`);
  }
  const speakers = new Map<string, number>();
  for (const [name, id] of Object.entries(json.speaker_id_map ?? {})) {
    if (Number.isInteger(id)) speakers.set(name, id as number);
  }
  return {
    sampleRate,
    espeakVoice,
    phonemeIdMap,
    noiseScale: numberOr(json.inference?.noise_scale, 0.667),
    lengthScale: numberOr(json.inference?.length_scale, 1),
    noiseW: numberOr(json.inference?.noise_w, 0.8),
    speakers,
  };
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
