/** What every pane shares: the client for the key in the header, and how a pane shows progress and errors. */
import { InferenceClient, InferenceError } from '../client/index.js';

const KEY_STORAGE = 'local-inference-server.api-key';

export function element<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

export function storedKey(): string {
  try {
    return localStorage.getItem(KEY_STORAGE) ?? '';
  } catch {
    return ''; // storage disabled: the key lives in the field only
  }
}

export function storeKey(key: string): void {
  try {
    if (key) localStorage.setItem(KEY_STORAGE, key);
    else localStorage.removeItem(KEY_STORAGE);
  } catch {
    /* storage disabled */
  }
}

/** A client of this origin with the key currently in the header's field. */
export function client(): InferenceClient {
  const apiKey = element<HTMLInputElement>('api-key').value.trim();
  return new InferenceClient({ baseUrl: location.origin, ...(apiKey ? { apiKey } : {}), retry: { maxRetries: 2, maxDelayMs: 4_000 } });
}

/** The server's own words, with what a person needs to report it (status, code, request id). */
export function describeError(error: unknown): string {
  if (error instanceof InferenceError) {
    const hint = error.status === 401 ? ' Enter a valid API key at the top of the page.' : '';
    const id = error.requestId ? `, request ${error.requestId}` : '';
    return `${error.message}${hint} (HTTP ${error.status} ${error.code}${id})`;
  }
  if (error instanceof DOMException && error.name === 'NotAllowedError') return `${error.message} (the browser refused: allow the microphone for this page)`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A pane's status line, error box and busy state (ids `<pane>-status`, `<pane>-error`, `<pane>-submit`). */
export class PaneState {
  readonly #status: HTMLElement;
  readonly #error: HTMLElement;
  readonly #submit: HTMLButtonElement | null;

  constructor(readonly pane: string) {
    this.#status = element(`${pane}-status`);
    this.#error = element(`${pane}-error`);
    this.#submit = document.getElementById(`${pane}-submit`) as HTMLButtonElement | null;
  }

  status(text: string): void {
    this.#status.textContent = text;
  }

  error(error: unknown): void {
    if (error instanceof DOMException && error.name === 'AbortError') {
      this.status('Stopped.');
      return;
    }
    this.#error.textContent = describeError(error);
    this.#error.hidden = false;
    this.status('');
  }

  clear(): void {
    this.#error.hidden = true;
    this.#error.textContent = '';
  }

  /** Runs `work` with the submit button disabled and the error box cleared; errors are shown. */
  async run(busyText: string, work: () => Promise<void>): Promise<void> {
    this.clear();
    this.status(busyText);
    if (this.#submit) this.#submit.disabled = true;
    document.getElementById(this.pane)?.setAttribute('aria-busy', 'true');
    try {
      await work();
    } catch (error) {
      this.error(error);
    } finally {
      if (this.#submit) this.#submit.disabled = false;
      document.getElementById(this.pane)?.removeAttribute('aria-busy');
    }
  }
}

/** Points a download link at `blob` (the previous object URL is released). */
export function offerDownload(link: HTMLAnchorElement, blob: Blob, filename: string): void {
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(blob);
  link.download = filename;
  link.hidden = false;
}

export function option(value: string, text = value): HTMLOptionElement {
  const created = document.createElement('option');
  created.value = value;
  created.textContent = text;
  return created;
}
