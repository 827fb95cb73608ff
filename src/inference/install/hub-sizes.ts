/**
 * Sizes of the files a manifest entry does not size, read from the hub's file tree at the entry's
 * pinned revision (hub-api.ts, LFS size for weights); for a `hubRepo` entry, the files `hf:` would
 * install for its dtype. One tree per repo and revision; once the hub proves unreachable it is not
 * asked again, so an offline `--list` costs one refused connection, not one per model.
 */
import type { ManifestEntry } from '../manifest.js';
import { publishedFile, readTree } from './hub-api.js';
import type { HubClient } from './hub-client.js';
import { resolveHubRepoEntry } from './hub-repo-entry.js';
import { HubUnreachableError, InstallError } from './install-errors.js';

export class HubSizes {
  readonly #hub: HubClient;
  readonly #trees = new Map<string, Promise<ReadonlyMap<string, number> | undefined>>();
  #unreachable = false;

  constructor(hub: HubClient) {
    this.#hub = hub;
  }

  get hubUrl(): string {
    return this.#hub.hubUrl;
  }

  /** Bytes of every source file of `entry` (pinned sizes, the rest from the hub), or undefined when the hub cannot tell. */
  async total(entry: ManifestEntry): Promise<number | undefined> {
    if (entry.hubRepo && !entry.source) return this.#hubRepoTotal(entry);
    const source = entry.source;
    // A wheel source is sized in the manifest (knownSize); only hub sources are asked.
    if (source?.type !== 'huggingface') return undefined;
    const tree = await this.#tree(source.repo, source.revision);
    if (!tree) return undefined;
    let total = 0;
    for (const file of source.files) {
      const size = file.size ?? tree.get(file.path);
      if (size === undefined) return undefined;
      total += size;
    }
    return total;
  }

  async #hubRepoTotal(entry: ManifestEntry): Promise<number | undefined> {
    if (this.#unreachable) return undefined;
    try {
      const files = (await resolveHubRepoEntry(this.#hub, entry)).source?.files ?? [];
      return files.every((file) => file.size !== undefined) ? files.reduce((sum, file) => sum + (file.size as number), 0) : undefined;
    } catch (error) {
      if (error instanceof HubUnreachableError) this.#unreachable = true;
      if (error instanceof InstallError) return undefined;
      throw error;
    }
  }

  #tree(repo: string, revision: string): Promise<ReadonlyMap<string, number> | undefined> {
    const key = `${repo}@${revision}`;
    let tree = this.#trees.get(key);
    if (!tree) {
      tree = this.#fetchTree(repo, revision);
      this.#trees.set(key, tree);
    }
    return tree;
  }

  async #fetchTree(repo: string, revision: string): Promise<ReadonlyMap<string, number> | undefined> {
    if (this.#unreachable) return undefined;
    try {
      const sizes = new Map<string, number>();
      for (const [path, item] of await readTree(this.#hub, repo, encodeURIComponent(revision))) {
        const { size } = publishedFile(item);
        if (size !== undefined) sizes.set(path, size);
      }
      return sizes;
    } catch (error) {
      if (error instanceof HubUnreachableError) this.#unreachable = true;
      return undefined;
    }
  }
}
