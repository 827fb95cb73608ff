/**
 * Downloads files from a Hugging Face compatible hub (`<hub>/<repo>/resolve/<revision>/<path>`)
 * with HTTP Range resume: bytes already in `<dest>` are kept and only the rest is requested.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { HubResponseError, HubUnreachableError, InstallError } from './install-errors.js';
import { fileSize } from './file-checks.js';

export const DEFAULT_HUB_URL = 'https://huggingface.co';

export interface HubClientOptions {
  /** Base URL, e.g. https://huggingface.co or a mirror (HF_ENDPOINT). */
  hubUrl: string;
  /** Until the response headers arrive. */
  connectTimeoutMs?: number;
  /** Longest silence while the body streams before the download is called stalled. */
  idleTimeoutMs?: number;
  /**
   * Slowest transfer accepted: fewer than `minBytesPerSecond` × `rateWindowMs` bytes in any window
   * and the transfer is called stalled, however often single bytes arrive (each would re-arm the
   * idle timer). See docs/models.md for the numbers.
   */
  minBytesPerSecond?: number;
  rateWindowMs?: number;
  /** A whole JSON answer of the API (headers and body) must arrive within this. */
  apiTimeoutMs?: number;
  /** Network failures after the transfer started are retried (resuming) this many times. */
  retries?: number;
}

interface DownloadProgress {
  start(resumedBytes: number, totalBytes: number | undefined): void;
  update(doneBytes: number): void;
  finish(): void;
}

interface DownloadResult {
  /** The commit the hub resolved the revision to (its X-Repo-Commit header), when it says. */
  repoCommit?: string;
}

interface DownloadOptions {
  /** The size the manifest or the hub's tree declares: a body running past it is cut at once. */
  expectedSize?: number;
  progress?: DownloadProgress;
}

class StalledError extends Error {}

/** Defaults, argued against huggingface_hub's in docs/models.md ("Slow and hostile mirrors"). */
const TRANSFER_DEFAULTS = {
  connectTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  minBytesPerSecond: 10_000,
  rateWindowMs: 60_000,
  apiTimeoutMs: 60_000,
  retries: 3,
} as const;

/** The body ran past the declared size: a hostile or broken source, not worth another attempt. */
class OversizeError extends InstallError {
  override name = 'OversizeError';
}

/** The connection broke or went silent mid-transfer: worth another (resumed) attempt. */
class TransferInterruptedError extends InstallError {
  override name = 'TransferInterruptedError';
}

export class HubClient {
  readonly hubUrl: string;
  readonly #connectTimeoutMs: number;
  readonly #idleTimeoutMs: number;
  readonly #retries: number;
  readonly #minBytesPerSecond: number;
  readonly #rateWindowMs: number;
  readonly #apiTimeoutMs: number;

  constructor(options: HubClientOptions) {
    this.hubUrl = options.hubUrl.replace(/\/+$/, '');
    this.#connectTimeoutMs = options.connectTimeoutMs ?? TRANSFER_DEFAULTS.connectTimeoutMs;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? TRANSFER_DEFAULTS.idleTimeoutMs;
    this.#retries = options.retries ?? TRANSFER_DEFAULTS.retries;
    this.#minBytesPerSecond = options.minBytesPerSecond ?? TRANSFER_DEFAULTS.minBytesPerSecond;
    this.#rateWindowMs = options.rateWindowMs ?? TRANSFER_DEFAULTS.rateWindowMs;
    this.#apiTimeoutMs = options.apiTimeoutMs ?? TRANSFER_DEFAULTS.apiTimeoutMs;
  }

  fileUrl(repo: string, revision: string, path: string): string {
    return `${this.hubUrl}/${repo}/resolve/${revision}/${path.split('/').map(encodeURIComponent).join('/')}`;
  }

  /**
   * GETs a hub API path (`/api/models/...`) as JSON. The body is capped: a listing of a real
   * repo is kilobytes, and a hostile mirror must not fill memory. Follows `Link: rel="next"`
   * pages (the tree API paginates) when the answer is an array.
   */
  async json(path: string): Promise<unknown> {
    let url: string | undefined = `${this.hubUrl}${path}`;
    let pages: unknown[] | undefined;
    let budget = MAX_API_BYTES;
    for (let page = 0; url !== undefined; page += 1) {
      if (page >= MAX_API_PAGES) throw new InstallError(`${this.hubUrl}${path} has more than ${MAX_API_PAGES} pages`);
      // One deadline for the headers and the whole body: a trickled answer cannot hold the run.
      const signal = AbortSignal.timeout(this.#apiTimeoutMs);
      const response = await this.#get(url, page === 0, signal);
      const text = await cappedText(response, url, budget);
      budget -= Buffer.byteLength(text);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new InstallError(`${url} did not answer JSON`);
      }
      if (!Array.isArray(body)) return body;
      pages = [...(pages ?? []), ...body];
      url = nextPage(response.headers.get('link'), this.hubUrl);
    }
    return pages;
  }

  async #get(url: string, firstRequest: boolean, deadline: AbortSignal): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { 'user-agent': 'local-inference-server download-models', accept: 'application/json' },
        redirect: 'follow',
        signal: AbortSignal.any([deadline, AbortSignal.timeout(this.#connectTimeoutMs)]),
      });
    } catch (error) {
      if (firstRequest) throw new HubUnreachableError(this.hubUrl, describeNetworkError(error));
      throw new InstallError(`${url} failed: ${describeNetworkError(error)}`);
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new HubResponseError(url, response.status);
    }
    return response;
  }

  /** Downloads `url` into `dest`, resuming from whatever `dest` already holds. */
  async download(url: string, dest: string, options: DownloadOptions = {}): Promise<DownloadResult> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.#attempt(url, dest, options, attempt === 0);
      } catch (error) {
        // Only a transfer that broke mid-way is retried; the bytes so far stay for the resume.
        if (!(error instanceof TransferInterruptedError) || attempt >= this.#retries) throw error;
      }
    }
  }

  async #attempt(url: string, dest: string, options: DownloadOptions, firstAttempt: boolean): Promise<DownloadResult> {
    let offset = await fileSize(dest);
    if (options.expectedSize !== undefined && offset > options.expectedSize) {
      await rm(dest, { force: true });
      offset = 0;
    }
    if (options.expectedSize !== undefined && offset === options.expectedSize && offset > 0) return {};

    const controller = new AbortController();
    let timer = setTimeout(() => controller.abort(new StalledError('connect')), this.#connectTimeoutMs);
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { 'user-agent': 'local-inference-server download-models', ...(offset > 0 ? { range: `bytes=${offset}-` } : {}) },
        redirect: 'follow',
        signal: controller.signal,
      });
    } catch (error) {
      clearTimeout(timer);
      if (!firstAttempt) throw new TransferInterruptedError(`download of ${url} failed: ${describeNetworkError(error)}`);
      throw new HubUnreachableError(this.hubUrl, describeNetworkError(error));
    }

    if (response.status === 416 && offset > 0) {
      // Our partial file is not a prefix the server recognises: start over.
      clearTimeout(timer);
      await response.body?.cancel();
      await rm(dest, { force: true });
      return this.#attempt(url, dest, options, firstAttempt);
    }
    if (response.status !== 200 && response.status !== 206) {
      clearTimeout(timer);
      await response.body?.cancel();
      throw new HubResponseError(url, response.status);
    }
    const resumed = response.status === 206 ? offset : 0;
    if (response.status === 206 && !contentRangeStartsAt(response.headers.get('content-range'), offset)) {
      clearTimeout(timer);
      await response.body?.cancel();
      throw new InstallError(`${url} answered a range that does not start at byte ${offset}`);
    }
    const length = response.headers.get('content-length') === null ? Number.NaN : Number(response.headers.get('content-length'));
    const { expectedSize } = options;
    if (expectedSize !== undefined && Number.isFinite(length) && resumed + length > expectedSize) {
      // Refused before one byte is read: the tree (or the pin) is the word on the size, not the mirror.
      clearTimeout(timer);
      await response.body?.cancel().catch(() => {});
      throw new InstallError(`${url} announces ${resumed + length} bytes, but the file is ${expectedSize} bytes; nothing was kept`);
    }
    const total = expectedSize ?? (Number.isFinite(length) && length > 0 ? resumed + length : undefined);
    options.progress?.start(resumed, total);

    let done = resumed;
    const idleTimeoutMs = this.#idleTimeoutMs;
    const rearm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(new StalledError('stalled')), idleTimeoutMs);
    };
    rearm();
    // Each window must bring its share: a byte every few seconds re-arms the idle timer forever.
    const windowMs = this.#rateWindowMs;
    const windowBytes = Math.ceil((this.#minBytesPerSecond * windowMs) / 1000);
    let windowStart = done;
    let lastWindowBytes = 0;
    const rateCheck = setInterval(() => {
      lastWindowBytes = done - windowStart;
      if (lastWindowBytes < windowBytes) controller.abort(new StalledError('slow'));
      windowStart = done;
    }, windowMs);
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        rearm();
        done += chunk.length;
        if (expectedSize !== undefined && done > expectedSize) {
          // Stop at the first byte too many, before it is written: a mirror cannot fill the disk.
          callback(new OversizeError(`${url} sent more than the ${expectedSize} bytes the file has; the transfer was stopped and nothing kept`));
          return;
        }
        options.progress?.update(done);
        callback(null, chunk);
      },
    });
    try {
      if (!response.body) throw new InstallError(`${url} answered without a body`);
      await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), counter, createWriteStream(dest, { flags: resumed > 0 ? 'a' : 'w' }));
    } catch (error) {
      if (error instanceof OversizeError) {
        await rm(dest, { force: true });
        throw error;
      }
      const reason = controller.signal.reason;
      if (reason instanceof StalledError && reason.message === 'slow') {
        const rate = this.#minBytesPerSecond;
        throw new TransferInterruptedError(
          `download of ${url} brought ${lastWindowBytes} bytes in ${windowMs / 1000}s, under the minimum of ${rate} bytes/s (DOWNLOAD_MIN_RATE)`,
        );
      }
      if (reason instanceof StalledError) {
        throw new TransferInterruptedError(`download of ${url} stalled for ${idleTimeoutMs / 1000}s`);
      }
      if (error instanceof InstallError) throw error;
      throw new TransferInterruptedError(`download of ${url} failed: ${describeNetworkError(error)}`);
    } finally {
      clearTimeout(timer);
      clearInterval(rateCheck);
    }
    options.progress?.finish();
    const repoCommit = response.headers.get('x-repo-commit');
    return repoCommit ? { repoCommit } : {};
  }
}

/** Bounds of one JSON answer of the hub, all its pages together (revision info, file tree, config). */
const MAX_API_BYTES = 16 * 1024 * 1024;
const MAX_API_PAGES = 100;

/** The body as text, refused past `limit` bytes; a time-out or a broken connection while it streams is an InstallError too. */
export async function cappedText(response: Response, url: string, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  if (!response.body) return '';
  try {
    for await (const chunk of Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)) {
      total += (chunk as Buffer).length;
      if (total > limit) {
        await response.body.cancel().catch(() => {});
        throw new InstallError(`${url} answered more than ${limit} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof InstallError) throw error;
    throw new InstallError(`${url}: the answer did not complete (${describeNetworkError(error)})`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The `rel="next"` URL of a Link header, only when it stays on the hub. */
function nextPage(link: string | null, hubUrl: string): string | undefined {
  const match = /<([^>]+)>\s*;\s*rel="next"/.exec(link ?? '');
  if (!match) return undefined;
  const next = new URL(match[1] as string, hubUrl);
  return next.origin === new URL(hubUrl).origin ? next.href : undefined;
}

function contentRangeStartsAt(header: string | null, offset: number): boolean {
  const match = /^bytes (\d+)-/.exec(header ?? '');
  return match !== null && Number(match[1]) === offset;
}

/** fetch() hides the socket error in `cause`; surface its code (ECONNREFUSED, ENOTFOUND…). */
export function describeNetworkError(error: unknown): string {
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError' || error instanceof StalledError)) {
    return 'timed out';
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return cause.code;
  if (cause?.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
