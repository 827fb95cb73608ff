/**
 * Files of the Files API: content on disk under FILES_DIR, one row each in `files`. Content is
 * streamed to a temporary file while its SHA-256 is computed, flushed, then renamed into place,
 * so a file that has a row is whole; a crash leaves at most a temporary or an unlisted file,
 * which `open` removes. A key sees its own files; an admin key sees every file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open as openFile, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import { NotFoundError, PayloadTooLargeError } from '../errors.js';
import type { Database } from '../users/database.js';
import type { FileRow } from './batch-tables.js';

/** Who is asking: a stored key by id (null for a static key), and whether it may see everything. */
export interface Viewer {
  keyId: number | null;
  admin: boolean;
}

export interface NewFile {
  filename: string;
  purpose: string;
  ownerKeyId: number | null;
  /** Seconds after creation the file expires; undefined: kept until deleted. */
  expiresAfterSeconds?: number;
}

export interface StagedFile {
  id: string;
  bytes: number;
  sha256: string;
}

export interface FileListQuery {
  purpose?: string;
  limit: number;
  order: 'asc' | 'desc';
  after?: string;
}

export interface FileStoreOptions {
  dir: string;
  maxFileBytes: number;
  maxTotalBytes: number;
  /** Unix seconds (tests move it). */
  now?: () => number;
}

const TMP = 'tmp';

const newFileId = () => `file-${randomBytes(12).toString('hex')}`;

export class FileStore {
  readonly #db: Kysely<Database>;
  readonly #options: FileStoreOptions;
  readonly #now: () => number;

  constructor(db: Kysely<Database>, options: FileStoreOptions) {
    this.#db = db;
    this.#options = options;
    this.#now = options.now ?? (() => Math.floor(Date.now() / 1000));
  }

  get maxFileBytes(): number {
    return this.#options.maxFileBytes;
  }

  /** Removes what a crash left: temporaries, and content no row names (staged, never committed). */
  async sweepOrphans(): Promise<void> {
    await rm(join(this.#options.dir, TMP), { recursive: true, force: true });
    await mkdir(join(this.#options.dir, TMP), { recursive: true });
    const names = (await readdir(this.#options.dir)).filter((name) => name.startsWith('file-'));
    if (names.length === 0) return;
    const known = new Set((await this.#db.selectFrom('files').select('id').execute()).map((row) => row.id));
    await Promise.all(names.filter((name) => !known.has(name)).map((name) => rm(join(this.#options.dir, name), { force: true })));
  }

  /**
   * Streams `content` into a new file on disk, not yet listed (`commit` lists it): 413 past
   * FILES_MAX_MB, or when the files stored would pass FILES_MAX_TOTAL_MB. `check` runs once the
   * content is written (the form's own checks).
   */
  async stage(content: Readable, check?: () => void, id = newFileId()): Promise<StagedFile> {
    const temp = join(this.#options.dir, TMP, `${id}.${randomBytes(4).toString('hex')}`);
    const hash = createHash('sha256');
    let bytes = 0;
    const max = this.#options.maxFileBytes;
    await mkdir(join(this.#options.dir, TMP), { recursive: true });
    try {
      await pipeline(
        content,
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            bytes += chunk.length;
            if (bytes > max) throw new PayloadTooLargeError(`the file is larger than ${max / 1024 / 1024} MB (FILES_MAX_MB)`);
            hash.update(chunk);
            yield chunk;
          }
        },
        createWriteStream(temp),
      );
      check?.();
      await this.#fits(bytes);
      // Flushed before it is named: a row must never point at content a power cut would lose.
      const handle = await openFile(temp, 'r');
      await handle.sync();
      await handle.close();
      await rename(temp, join(this.#options.dir, id));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return { id, bytes, sha256: hash.digest('hex') };
  }

  /** Lists a staged file under `meta`; until then a restart removes it. */
  async commit(staged: StagedFile, meta: NewFile): Promise<FileRow> {
    const createdAt = this.#now();
    const row: FileRow = {
      id: staged.id,
      owner_key_id: meta.ownerKeyId,
      filename: meta.filename,
      purpose: meta.purpose,
      bytes: staged.bytes,
      sha256: staged.sha256,
      created_at: createdAt,
      expires_at: meta.expiresAfterSeconds === undefined ? null : createdAt + meta.expiresAfterSeconds,
    };
    try {
      await this.#db.insertInto('files').values(row).execute();
    } catch (error) {
      // A batch's output file has an id of its own making: another runner may have listed the same content first.
      const existing = await this.#db.selectFrom('files').selectAll().where('id', '=', staged.id).executeTakeFirst();
      if (existing) return normalised(existing);
      await this.discard(staged.id);
      throw error;
    }
    return row;
  }

  /** Whether a file with this id is listed (expired or not). */
  async exists(id: string): Promise<boolean> {
    return (await this.#db.selectFrom('files').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  /** Removes a staged file that will not be listed. */
  async discard(id: string): Promise<void> {
    await rm(join(this.#options.dir, id), { force: true });
  }

  async write(content: Readable, meta: NewFile): Promise<FileRow> {
    return this.commit(await this.stage(content), meta);
  }

  async #fits(bytes: number): Promise<void> {
    const used = await this.usedBytes();
    if (used + bytes > this.#options.maxTotalBytes) {
      throw new PayloadTooLargeError(
        `storing ${bytes} bytes would pass the ${this.#options.maxTotalBytes / 1024 / 1024} MB all files may take (FILES_MAX_TOTAL_MB; ${used} bytes are stored): delete files first`,
      );
    }
  }

  /** Bytes all stored files take. */
  async usedBytes(): Promise<number> {
    const row = await this.#db
      .selectFrom('files')
      .select((eb) => eb.fn.sum<number | string | null>('bytes').as('total'))
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  /** The file if `viewer` may see it and it has not expired; 404 otherwise (another key's file is not told apart from none). */
  async get(id: string, viewer: Viewer): Promise<FileRow> {
    const row = await this.#db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || !visible(row, viewer) || this.#expired(row)) throw new NotFoundError('File', id);
    return normalised(row);
  }

  /** The content of a file `get` returned. */
  read(row: FileRow): Readable {
    return createReadStream(join(this.#options.dir, row.id));
  }

  async list(viewer: Viewer, query: FileListQuery): Promise<{ files: FileRow[]; hasMore: boolean }> {
    let select = this.#db
      .selectFrom('files')
      .selectAll()
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', this.#now())]));
    if (!viewer.admin) select = select.where('owner_key_id', '=', viewer.keyId ?? -1);
    if (query.purpose !== undefined) select = select.where('purpose', '=', query.purpose);
    if (query.after !== undefined) {
      const cursor = await this.#db.selectFrom('files').select(['created_at', 'id']).where('id', '=', query.after).executeTakeFirst();
      if (cursor) {
        const op = query.order === 'asc' ? '>' : '<';
        select = select.where((eb) =>
          eb.or([eb('created_at', op, cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('id', op, cursor.id)])]),
        );
      }
    }
    const rows = await select
      .orderBy('created_at', query.order)
      .orderBy('id', query.order)
      .limit(query.limit + 1)
      .execute();
    return { files: rows.slice(0, query.limit).map(normalised), hasMore: rows.length > query.limit };
  }

  async delete(id: string, viewer: Viewer): Promise<void> {
    const row = await this.get(id, viewer);
    await this.#remove(row.id);
  }

  /** Deletes the files whose `expires_after` has passed; returns how many. */
  async sweepExpired(): Promise<number> {
    const rows = await this.#db.selectFrom('files').select('id').where('expires_at', '<=', this.#now()).execute();
    for (const row of rows) await this.#remove(row.id);
    return rows.length;
  }

  async #remove(id: string): Promise<void> {
    await this.#db.deleteFrom('files').where('id', '=', id).execute();
    await rm(join(this.#options.dir, id), { force: true });
  }

  #expired(row: FileRow): boolean {
    return row.expires_at !== null && row.expires_at <= this.#now();
  }
}

export function visible(row: { owner_key_id: number | null }, viewer: Viewer): boolean {
  return viewer.admin || (row.owner_key_id !== null && row.owner_key_id === viewer.keyId);
}

/** PostgreSQL may return numbers of double columns as numbers, SQLite REAL as floats: sizes are whole. */
function normalised(row: FileRow): FileRow {
  return { ...row, bytes: Number(row.bytes) };
}
