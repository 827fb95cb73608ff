/**
 * What a presented API key may do, decided once per request: the key itself (static, or stored
 * and neither revoked nor expired), its requests-per-minute limit, which models it may use, and
 * its usage. Limits are counted by rate-limiter-flexible: in this process, or in Redis when
 * REDIS_URL is set, so replicas behind a load balancer share one count per key. Usage (requests,
 * audio seconds, characters) is added up in memory and written every few seconds.
 *
 * The key's policy travels with the request in an AsyncLocalStorage, so the model registry view
 * (src/http/scoped-models.ts) can check the model a route asks for without every route passing it on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { KeyPolicy, KeyStore, KeyUsage } from './key-store.js';
import { ModelNotAllowedError, RateLimitedError } from '../errors.js';
import { asRequester } from '../requester.js';
import { hashApiKey } from './api-key.js';
import type { Logger } from '../logger.js';

const USAGE_FLUSH_MS = 5_000;

/**
 * The name a key's model calls share models under: a stored key by its id; a static key (all share
 * one policy) by the start of its digest, which tells configured keys apart and reveals nothing.
 */
export function requesterOf(policy: KeyPolicy, key: string): string {
  return policy.id !== null ? `key ${policy.id}` : `static ${hashApiKey(key).toString('hex').slice(0, 16)}`;
}

export class KeyAccess {
  readonly #keys: KeyStore;
  readonly #redis: Redis | undefined;
  readonly #logger: Logger;
  readonly #prefix: string;
  readonly #limiters = new Map<number, RateLimiterAbstract>();
  readonly #current = new AsyncLocalStorage<KeyPolicy>();
  readonly #pending = new Map<number, KeyUsage>();
  readonly #flusher: NodeJS.Timeout;

  constructor(keys: KeyStore, options: { redis?: Redis; prefix?: string; logger: Logger }) {
    this.#prefix = options.prefix ?? 'lis';
    this.#keys = keys;
    this.#redis = options.redis;
    this.#logger = options.logger;
    this.#flusher = setInterval(() => void this.flush(), USAGE_FLUSH_MS).unref();
  }

  /**
   * The key's policy, or undefined for an unknown, revoked or expired key; throws RateLimitedError
   * over its limit. Each turn of a realtime session is authorized again, so a key revoked or
   * expired mid-session, or limited to a few requests a minute, cannot transcribe without end
   * over one WebSocket.
   */
  async authorize(key: string): Promise<KeyPolicy | undefined> {
    const policy = await this.#keys.verify(key);
    if (policy) await this.#charge(policy);
    return policy;
  }

  /** The key's policy now, or undefined once it is revoked or expired; no request is counted. */
  verify(key: string): Promise<KeyPolicy | undefined> {
    return this.#keys.verify(key);
  }

  /** Counts one more request of a verified key, under its requests-per-minute limit (throws RateLimitedError past it). */
  charge(policy: KeyPolicy): Promise<void> {
    return this.#charge(policy);
  }

  /** The policy of stored key `id` now; undefined once it is revoked, expired or gone. */
  policyOf(id: number): Promise<KeyPolicy | undefined> {
    return this.#keys.policyOf(id);
  }

  /** As `run`, for work whose requester is named by its owner (a batch) rather than by a presented key. */
  runAs<T>(policy: KeyPolicy, requester: string, work: () => T): T {
    return asRequester(requester, () => this.#current.run(policy, work));
  }

  async #charge(policy: KeyPolicy): Promise<void> {
    if (policy.id === null) return;
    if (policy.rpm !== null) await this.#consume(policy.id, policy.rpm);
    this.#add(policy.id, { requests: 1, audioSeconds: 0, characters: 0 });
  }

  /**
   * Runs `work` (the rest of the request) with `policy` as the current key, and `key` as the
   * requester its model calls are made for: each model's queue shares its thread fairly between
   * requesters (src/inference/worker/fair-queue.ts).
   */
  run<T>(policy: KeyPolicy, key: string, work: () => T): T {
    return asRequester(requesterOf(policy, key), () => this.#current.run(policy, work));
  }

  /** The key of the request being handled, if any. */
  current(): KeyPolicy | undefined {
    return this.#current.getStore();
  }

  /** Throws 403 unless the current key may use the model asked for as `requested` and served by `id`. */
  checkModel(requested: string, id: string): void {
    const allowed = this.#current.getStore()?.models;
    if (allowed && !allowed.includes(requested) && !allowed.includes(id)) throw new ModelNotAllowedError(requested, allowed);
  }

  /** Adds to the current key's usage (nothing for static keys or outside a request). */
  count(usage: Partial<KeyUsage>): void {
    const id = this.#current.getStore()?.id;
    if (id === null || id === undefined) return;
    this.#add(id, { requests: 0, audioSeconds: 0, characters: 0, ...usage });
  }

  /** Writes the usage added up so far (also on shutdown). */
  async flush(): Promise<void> {
    const pending = [...this.#pending];
    this.#pending.clear();
    await Promise.all(
      pending.map(([id, usage]) =>
        this.#keys.addUsage(id, usage).catch((error: unknown) => this.#logger.warn('could not record API key usage', { keyId: id, error })),
      ),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.#flusher);
    await this.flush();
  }

  #add(id: number, usage: KeyUsage): void {
    const total = this.#pending.get(id) ?? { requests: 0, audioSeconds: 0, characters: 0 };
    total.requests += usage.requests;
    total.audioSeconds += usage.audioSeconds;
    total.characters += usage.characters;
    this.#pending.set(id, total);
  }

  async #consume(id: number, rpm: number): Promise<void> {
    let limiter = this.#limiters.get(rpm);
    if (!limiter) {
      // One limiter per limit value: a key's count lives under its id, its window is one minute.
      const options = { points: rpm, duration: 60, keyPrefix: `${this.#prefix}-rpm-${rpm}` };
      limiter = this.#redis ? new RateLimiterRedis({ ...options, storeClient: this.#redis }) : new RateLimiterMemory(options);
      this.#limiters.set(rpm, limiter);
    }
    try {
      await limiter.consume(String(id));
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      throw new RateLimitedError(rpm, Math.max(1, Math.ceil(error.msBeforeNext / 1000)));
    }
  }
}
