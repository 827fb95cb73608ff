/** The Batch API over fetch, as any client would use it, for the tests that run the server as a process. */
import { expect } from 'chai';

export const BATCH_TEST_KEY = 'durability-key-0123456789';

/** The batch API over fetch, as any client would use it. */
export function batchClient(url: string, key = BATCH_TEST_KEY) {
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${url}${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, ...(init.headers ?? {}) } });
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  return {
    async upload(jsonl: string): Promise<string> {
      const form = new FormData();
      form.set('purpose', 'batch');
      form.set('file', new Blob([jsonl]), 'input.jsonl');
      return ((await (await call('/v1/files', { method: 'POST', body: form })).json()) as { id: string }).id;
    },
    async create(inputFileId: string, endpoint = '/v1/embeddings'): Promise<string> {
      const body = JSON.stringify({ input_file_id: inputFileId, endpoint, completion_window: '24h' });
      return ((await (await call('/v1/batches', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } })).json()) as { id: string }).id;
    },
    async batch(id: string): Promise<any> {
      return (await call(`/v1/batches/${id}`)).json();
    },
    async content(fileId: string): Promise<any[]> {
      const text = await (await call(`/v1/files/${fileId}/content`)).text();
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line));
    },
    async embed(input: string[]): Promise<number[][]> {
      const body = JSON.stringify({ model: 'text-embedding-3-small', input });
      const answer = (await (await call('/v1/embeddings', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } })).json()) as {
        data: { embedding: number[] }[];
      };
      return answer.data.map((item) => item.embedding);
    },
  };
}

export const embeddingLines = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    custom_id: `line-${i}`,
    method: 'POST',
    url: '/v1/embeddings',
    body: { model: 'text-embedding-3-small', input: `Passage ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(1 + (i % 7))}` },
  }));

/** Checks a finished batch: every line once, in order, each vector the synchronous route's. */
export async function expectEveryLineOnce(client: ReturnType<typeof batchClient>, batch: any, lines: ReturnType<typeof embeddingLines>): Promise<void> {
  expect(batch.status).to.equal('completed');
  expect(batch.request_counts).to.deep.equal({ total: lines.length, completed: lines.length, failed: 0 });
  const output = await client.content(batch.output_file_id);
  expect(output.map((line) => line.custom_id)).to.deep.equal(lines.map((line) => line.custom_id));
  for (let at = 0; at < lines.length; at += 100) {
    const slice = lines.slice(at, at + 100);
    const vectors = await client.embed(slice.map((line) => line.body.input));
    slice.forEach((_, i) => expect(output[at + i].response.body.data[0].embedding, slice[i]!.custom_id).to.deep.equal(vectors[i]));
  }
}
