/**
 * Reads the manifest `options` the classification engines understand. Errors name the model and
 * the option; they surface as a 503 "failed to load" that tells the operator what to fix.
 */
import { availableParallelism } from 'node:os';
import type { ManifestEntry } from '../manifest.js';
import type { MicroBatcherOptions } from './micro-batcher.js';

/** A label and the sentences that describe it (embedding prototypes, or NLI hypotheses). */
export interface LabelSpec {
  label: string;
  descriptions: string[];
}

export class ClassifierOptionError extends Error {
  override name = 'ClassifierOptionError';
}

/** maxWaitMs 0: measured here, a 2 ms wait cost ~20 % at one client and bought nothing at 8 or 32. */
const DEFAULT_BATCH = Object.freeze({ maxBatchSize: 32, maxWaitMs: 0 });

function option(entry: ManifestEntry, name: string): unknown {
  return entry.options?.[name];
}

function fail(entry: ManifestEntry, name: string, expected: string): never {
  throw new ClassifierOptionError(`models.json "${entry.id}": options.${name} must be ${expected}`);
}

export function optionalBoolean(entry: ManifestEntry, name: string): boolean | undefined {
  const value = option(entry, name);
  if (value === undefined) return undefined;
  return typeof value === 'boolean' ? value : fail(entry, name, 'true or false');
}

export function optionalNumber(entry: ManifestEntry, name: string, min: number, max: number): number | undefined {
  const value = option(entry, name);
  if (value === undefined) return undefined;
  return typeof value === 'number' && value >= min && value <= max ? value : fail(entry, name, `a number in [${min}, ${max}]`);
}

export function optionalString(entry: ManifestEntry, name: string): string | undefined {
  const value = option(entry, name);
  if (value === undefined) return undefined;
  return typeof value === 'string' && value !== '' ? value : fail(entry, name, 'a non-empty string');
}

/**
 * `options.labels`: an array of label names, or of `{label, description?, descriptions?}`.
 * A label without a description is described by its own name.
 */
export function labelSpecs(entry: ManifestEntry): LabelSpec[] | undefined {
  const value = option(entry, 'labels');
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) fail(entry, 'labels', 'a non-empty array');
  const specs = value.map((item: unknown): LabelSpec => {
    if (typeof item === 'string' && item !== '') return { label: item, descriptions: [item] };
    const { label, description, descriptions } = (item ?? {}) as Record<string, unknown>;
    if (typeof label !== 'string' || label === '') fail(entry, 'labels', 'label names or {label, descriptions}');
    const all = [...(typeof description === 'string' ? [description] : []), ...(Array.isArray(descriptions) ? descriptions : [])];
    if (!all.every((text) => typeof text === 'string' && text.trim() !== '')) {
      fail(entry, `labels[${JSON.stringify(label)}].descriptions`, 'an array of non-empty strings');
    }
    return { label, descriptions: all.length > 0 ? (all as string[]) : [label] };
  });
  if (new Set(specs.map((spec) => spec.label)).size !== specs.length) fail(entry, 'labels', 'free of duplicates');
  return specs;
}

/** Label names for GET /v1/models; never throws, so one bad entry cannot break the listing. */
export function describeLabels(entry: ManifestEntry): string[] | undefined {
  try {
    return labelSpecs(entry)?.map((spec) => spec.label);
  } catch {
    return undefined;
  }
}

export function batchOptions(entry: ManifestEntry): Required<MicroBatcherOptions> {
  return {
    maxBatchSize: optionalNumber(entry, 'maxBatchSize', 1, 512) ?? DEFAULT_BATCH.maxBatchSize,
    maxWaitMs: optionalNumber(entry, 'maxWaitMs', 0, 1000) ?? DEFAULT_BATCH.maxWaitMs,
    maxInFlight: workerLayout(entry).workers,
  };
}

/**
 * How many model workers (each with its own ONNX session) and how many intra-op threads each.
 * Measured here on all-MiniLM-L6-v2: two single-threaded sessions fed half-batches each classify
 * ~190 texts/s on 2 cores, one two-threaded session ~110-140 texts/s (small GEMMs and the
 * attention op parallelise poorly inside one run). Defaults: 2 workers (1 on a single core), the
 * cores split between them. Options `workers` and `threads` override.
 */
export function workerLayout(entry: ManifestEntry, cores = availableParallelism()): { workers: number; threads: number } {
  const workers = optionalNumber(entry, 'workers', 1, 64) ?? Math.min(2, cores);
  const threads = optionalNumber(entry, 'threads', 1, 256) ?? Math.max(1, Math.floor(cores / workers));
  if (!Number.isInteger(workers) || !Number.isInteger(threads)) fail(entry, 'workers/threads', 'integers');
  return { workers, threads };
}
