/**
 * Writes a generated catalogue file (models/catalog/<name>.json): where it was generated from,
 * then its entries, checked by the manifest reader before anything is written. Arrays of plain
 * values stay on one line so that a voice's 900 speaker names are one line of the diff, not 900.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseManifest, type ManifestEntry } from '../../src/inference/manifest.js';

export interface Provenance {
  /** The script, e.g. "scripts/catalog/build-piper-voices.ts". */
  generator: string;
  /** What it read, with the source of each input and its SHA-256 when it is a file. */
  inputs: Array<{ what: string; source: string; sha256?: string }>;
}

export function catalogText(provenance: Provenance, models: ManifestEntry[], origin: string): string {
  parseManifest({ models }, origin);
  return `${formatJson({ generated: provenance, models }, '')}\n`;
}

export async function writeCatalog(path: string, provenance: Provenance, models: ManifestEntry[]): Promise<void> {
  await writeFile(path, catalogText(provenance, models, path));
}

/** Ids of the hand-written manifest, which a generated entry must not take. */
export async function manifestIds(path: string): Promise<Set<string>> {
  const raw = JSON.parse(await readFile(path, 'utf8')) as { models: Array<{ id: string }> };
  return new Set(raw.models.map((entry) => entry.id));
}

function formatJson(value: unknown, indent: string): string {
  if (Array.isArray(value)) {
    if (value.every((item) => item === null || typeof item !== 'object')) return JSON.stringify(value);
    const inner = `${indent}  `;
    return `[\n${value.map((item) => inner + formatJson(item, inner)).join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    return `{\n${entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${formatJson(item, inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}
