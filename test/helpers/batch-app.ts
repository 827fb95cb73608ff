/**
 * The Files and Batch API of an in-process test app, as a client calls it: upload a JSONL input,
 * create a batch, poll it to its end, read an output or error file's lines. Every batch answer is
 * checked against OpenAI's Batch schema on the way.
 */
import { expect } from 'chai';
import { expectOpenAiShape } from './openai-spec.js';
import { bearer, type TestApp } from './test-app.js';

export const FINAL_BATCH_STATUSES = ['completed', 'failed', 'expired', 'cancelled'];

/** One line of a batch's output or error file. */
export interface OutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: any } | null;
  error: { code: string; message: string } | null;
}

/** `app` is read on each call, so the API can be made before the app is (in `describe`). */
export function batchApi(app: () => TestApp) {
  const api = {
    /** Uploads `lines` (objects as JSON, strings as they are) as a JSONL file; its id. */
    async upload(lines: readonly unknown[], key?: string): Promise<string> {
      const jsonl = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
      const res = await app()
        .request.post('/v1/files')
        .set('Authorization', bearer(key))
        .field('purpose', 'batch')
        .attach('file', Buffer.from(jsonl), 'in.jsonl');
      expect(res.status, res.text).to.equal(200);
      return res.body.id as string;
    },
    async create(inputFileId: string, endpoint: string, key?: string, extra: object = {}): Promise<any> {
      const res = await app()
        .request.post('/v1/batches')
        .set('Authorization', bearer(key))
        .send({ input_file_id: inputFileId, endpoint, completion_window: '24h', ...extra });
      expect(res.status, res.text).to.equal(200);
      expectOpenAiShape('Batch', res.body);
      return res.body;
    },
    async get(id: string, key?: string): Promise<any> {
      const res = await app().request.get(`/v1/batches/${id}`).set('Authorization', bearer(key));
      expect(res.status, res.text).to.equal(200);
      expectOpenAiShape('Batch', res.body);
      return res.body;
    },
    /** Polls the batch until it has ended. */
    async settle(id: string, key?: string): Promise<any> {
      for (;;) {
        const batch = await api.get(id, key);
        if (FINAL_BATCH_STATUSES.includes(batch.status)) return batch;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    /** The lines of an output or error file; none when the batch has no such file. */
    async lines(fileId: string | undefined, key?: string): Promise<OutputLine[]> {
      if (fileId === undefined) return [];
      const res = await app().request.get(`/v1/files/${fileId}/content`).set('Authorization', bearer(key)).buffer(true).parse(textBody);
      expect(res.status).to.equal(200);
      return (res.body as string)
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line));
    },
  };
  return api;
}

/** Supertest's parser for a body read as text whatever its type (JSONL files). */
function textBody(res: unknown, done: (error: Error | null, body: string) => void): void {
  const stream = res as NodeJS.ReadableStream;
  let body = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (body += chunk));
  stream.on('end', () => done(null, body));
}
