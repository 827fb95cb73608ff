/**
 * What a model takes on disk, known before it is downloaded: the sum of its source files' sizes
 * when the manifest sizes every one, else the entry's stated `diskSize` (Debian packages, test
 * models, hub repos sized from public pins or estimated). Nothing here touches the network.
 */
import type { ManifestEntry } from './manifest.js';

export interface KnownSize {
  bytes: number;
  /** `files`: the sum of the pinned file sizes; otherwise the entry's `diskSize.from`. */
  from: string;
  /** Worked out rather than read (docs/models.md says how); shown as "~". */
  estimated: boolean;
}

export function knownSize(entry: ManifestEntry): KnownSize | undefined {
  const files = entry.source?.files ?? [];
  if (files.length > 0 && files.every((file) => file.size !== undefined)) {
    return { bytes: files.reduce((sum, file) => sum + (file.size as number), 0), from: 'files', estimated: false };
  }
  const { diskSize } = entry;
  return diskSize ? { bytes: diskSize.bytes, from: diskSize.from, estimated: diskSize.estimated === true } : undefined;
}
