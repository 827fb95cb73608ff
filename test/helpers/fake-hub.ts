/**
 * A local stand-in for the Hugging Face hub: serves `/<repo>/resolve/<revision>/<path>` from
 * memory on 127.0.0.1, honours `Range: bytes=N-`, and can cut a transfer half-way once.
 * startHubMirror adds the API endpoints over repos laid out as the real ones.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join, relative } from 'node:path';

export interface FakeHub {
  url: string;
  /** Every request: path and its Range header. */
  requests: Array<{ path: string; range: string | undefined }>;
  /** Paths whose next response is cut after half the body. */
  cutOnce: Set<string>;
  /** Paths whose next response sends half the body, then nothing (the socket stays open). */
  stallOnce: Set<string>;
  close(): Promise<void>;
}

/** A JSON answer of the API, or a function of the request URL giving the body and extra headers (pages). */
type ApiAnswer = unknown | ((url: URL) => { body: unknown; headers?: Record<string, string> });

/**
 * Answers a request itself instead of the hub (a hostile mirror: a body past its size, a trickle);
 * returns false to let the hub answer.
 */
export type HubOverride = (path: string, req: IncomingMessage, res: ServerResponse) => boolean;

/** `api`: JSON answers by path, as the hub's `/api/…` endpoints give them. */
export async function startFakeHub(files: Record<string, Buffer>, api: Record<string, ApiAnswer> = {}, override?: HubOverride): Promise<FakeHub> {
  const requests: FakeHub['requests'] = [];
  const cutOnce = new Set<string>();
  const stallOnce = new Set<string>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(url.pathname);
    requests.push({ path, range: req.headers.range });
    if (override?.(path, req, res)) return;
    if (Object.hasOwn(api, path)) {
      const answer = api[path];
      const { body, headers } = typeof answer === 'function' ? answer(url) : { body: answer, headers: {} };
      res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      return;
    }
    const body = files[path];
    if (!body) {
      res.writeHead(404).end('Entry not found');
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start >= body.length && range) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    const slice = body.subarray(start);
    const revision = /\/resolve\/([^/]+)\//.exec(path)?.[1];
    res.writeHead(range ? 206 : 200, {
      ...(revision ? { 'x-repo-commit': revision.length === 40 ? revision : 'c0ffee'.padEnd(40, '0') } : {}),
      'content-length': String(slice.length),
      'accept-ranges': 'bytes',
      ...(range ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    if (stallOnce.delete(path)) {
      res.write(slice.subarray(0, Math.floor(slice.length / 2)));
      return;
    }
    if (cutOnce.delete(path)) {
      // Give the client time to store the first half before the connection dies.
      res.write(slice.subarray(0, Math.floor(slice.length / 2)), () => setTimeout(() => res.destroy(), 100));
      return;
    }
    res.end(slice);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cutOnce,
    stallOnce,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port that was just free: connecting to it is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** A server that accepts connections and never answers: a hub behind a black-holing firewall. */
export async function silentServerUrl(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server = createNetServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A repo of the hub mirror: its files by path, as the real repo lays them out. */
export interface MirrorRepo {
  files: Record<string, Buffer>;
  /** Default: a commit id derived from the repo name. */
  commit?: string;
  license?: string;
  /** Bytes served for a path instead of the published ones (whose size and SHA-256 the API still states). */
  tampered?: Record<string, Buffer>;
  /** Paths kept in git rather than LFS although they would be LFS files (no SHA-256 published). */
  inGit?: string[];
  /** Tree entries per page; further pages are named by `Link: <…?cursor=N>; rel="next"`, as the hub paginates. */
  treePageSize?: number;
  /** Tags or branches besides `main` that the revision API resolves to the commit (e.g. piper-voices `v1.0.0`). */
  refs?: string[];
}

/** Files the mirror keeps in LFS, as the hub's default `.gitattributes` does (weights, `*.bin` such as Kokoro's voices). */
const isLfs = (path: string) => /\.(onnx(_data(_\d+)?)?|bin)$/.test(path);

/** The commit id the mirror gives a repo without one. */
export function mirrorCommit(repo: string): string {
  return createHash('sha1').update(repo).digest('hex');
}

/**
 * A hub mirror that speaks the API `download-models hf:` uses, with the real JSON shapes:
 * `GET /api/models/<repo>/revision/<rev>` ({id, sha, siblings, cardData}), `GET
 * /api/models/<repo>/tree/<commit>?recursive=true` (entries with `oid`, `size`, and for LFS
 * files `lfs: {oid, size, pointerSize}`), and the files under `/<repo>/resolve/<commit>/<path>`.
 * `extra` serves more files by URL path on the same port (a package index's pages and wheels).
 */
export async function startHubMirror(repos: Record<string, MirrorRepo>, extra: Record<string, Buffer> = {}, override?: HubOverride): Promise<FakeHub> {
  const files: Record<string, Buffer> = { ...extra };
  const api: Record<string, unknown> = {};
  for (const [repo, spec] of Object.entries(repos)) {
    const commit = spec.commit ?? mirrorCommit(repo);
    const paths = Object.keys(spec.files).sort();
    const info = {
      id: repo,
      sha: commit,
      siblings: paths.map((rfilename) => ({ rfilename })),
      ...(spec.license ? { cardData: { license: spec.license } } : {}),
    };
    for (const ref of ['main', commit, ...(spec.refs ?? [])]) api[`/api/models/${repo}/revision/${ref}`] = info;
    const dirs = [
      ...new Set(
        paths.flatMap((path) =>
          path
            .split('/')
            .slice(0, -1)
            .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
        ),
      ),
    ];
    const tree = [
      ...dirs.map((path) => ({ type: 'directory', oid: mirrorCommit(path), size: 0, path })),
      ...paths.map((path) => {
        const bytes = spec.files[path] as Buffer;
        const blob = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
        const lfs =
          isLfs(path) && !spec.inGit?.includes(path)
            ? { lfs: { oid: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, pointerSize: 134 } }
            : {};
        return { type: 'file', oid: blob, size: bytes.length, path, ...lfs };
      }),
    ];
    const pageSize = spec.treePageSize ?? tree.length;
    api[`/api/models/${repo}/tree/${commit}`] = (url: URL) => {
      const cursor = Number(url.searchParams.get('cursor') ?? 0);
      const next = new URL(url.href);
      next.searchParams.set('cursor', String(cursor + pageSize));
      const more = cursor + pageSize < tree.length;
      return { body: tree.slice(cursor, cursor + pageSize), headers: more ? { link: `<${next.pathname}${next.search}>; rel="next"` } : {} };
    };
    for (const path of paths) files[`/${repo}/resolve/${commit}/${path}`] = spec.tampered?.[path] ?? (spec.files[path] as Buffer);
  }
  return startFakeHub(files, api, override);
}

/** A model folder's files (recursively, dot-files left out) by their path inside it. */
export function folderFiles(dir: string): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.startsWith('.')) continue;
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path).split('\\').join('/')] = readFileSync(path);
  }
  return out;
}
