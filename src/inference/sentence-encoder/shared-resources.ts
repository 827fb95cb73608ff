/**
 * A ref-counted cache of things that are expensive to start and safe to share (a base model's
 * worker threads and ONNX sessions): the first `acquire` of a key starts one, later ones reuse it,
 * and it is disposed when the last lease on it is released. A start that fails is forgotten, so
 * the next `acquire` tries again.
 */

export interface Lease<V> {
  readonly value: V;
  /** Gives the lease back; the last release of a key disposes its value. Idempotent. */
  release(): Promise<void>;
}

interface Entry<V> {
  value: Promise<V>;
  users: number;
}

export class SharedResources<V> {
  readonly #dispose: (value: V) => Promise<void>;
  readonly #entries = new Map<string, Entry<V>>();

  constructor(dispose: (value: V) => Promise<void>) {
    this.#dispose = dispose;
  }

  /** Keys with at least one lease (or a start under way). */
  get size(): number {
    return this.#entries.size;
  }

  async acquire(key: string, start: () => Promise<V>): Promise<Lease<V>> {
    let entry = this.#entries.get(key);
    if (!entry) {
      const created: Entry<V> = { value: start(), users: 0 };
      created.value.catch(() => {
        if (this.#entries.get(key) === created) this.#entries.delete(key);
      });
      this.#entries.set(key, (entry = created));
    }
    entry.users++;
    const held = entry;
    let value: V;
    try {
      value = await held.value;
    } catch (error) {
      held.users--;
      throw error;
    }
    let released = false;
    return {
      value,
      release: async () => {
        if (released) return;
        released = true;
        if (--held.users > 0) return;
        if (this.#entries.get(key) === held) this.#entries.delete(key);
        await this.#dispose(value);
      },
    };
  }
}
