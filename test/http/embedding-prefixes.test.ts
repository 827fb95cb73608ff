/**
 * Query and passage prefixes (multilingual-e5's `query: `, `passage: `) through /v1/embeddings'
 * `input_type` and TEI's `prompt_name`, and CLS pooling (bge), on the random-weight MiniLM
 * fixture: the vectors are meaningless, so each is compared with the same text sent prefixed to
 * a model without prefixes, or with another pooling of the same weights.
 */
import { expect } from 'chai';
import type { Manifest, ManifestEntry } from '../../src/inference/manifest.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const FIXTURES = new URL('../fixtures/models/', import.meta.url).pathname;

const encoder = (id: string, options: Record<string, unknown>): ManifestEntry => ({
  id,
  task: 'embeddings',
  engine: 'sentence-embedding',
  description: 'random-weight MiniLM fixture',
  license: 'test',
  options: { baseModel: 'minilm-random', workers: 1, ...options },
});
const MANIFEST: Manifest = {
  models: [encoder('plain', {}), encoder('e5-like', { prefixes: { query: 'query: ', passage: 'passage: ' } }), encoder('cls-pooled', { pooling: 'cls' })],
};

describe('embeddings: query and passage prefixes, CLS pooling (random-weight fixture)', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp({ manifest: MANIFEST, modelsDir: FIXTURES });
  });
  after(() => app?.close());

  const openai = async (body: object) => {
    const res = await app.request.post('/v1/embeddings').set('Authorization', bearer()).send(body);
    expect(res.status, res.text).to.equal(200);
    return res.body.data.map((item: { embedding: number[] }) => item.embedding) as number[][];
  };
  const tei = async (model: string, body: object) => {
    const res = await app.request.post(`/embed?model=${model}`).set('Authorization', bearer()).send(body);
    expect(res.status, res.text).to.equal(200);
    return res.body as number[][];
  };
  const close = (a: number[] | undefined, b: number[] | undefined) => a!.forEach((x, i) => expect(x).to.be.closeTo(b![i]!, 1e-5));

  it('embeds with the passage prefix by default and the query prefix when input_type says so', async () => {
    const texts = ['how big is the moon', 'The moon is 3,474 km across.'];
    const [passage, query] = [await openai({ model: 'e5-like', input: texts }), await openai({ model: 'e5-like', input: texts, input_type: 'query' })];
    const [prefixedPassage, prefixedQuery] = [
      await openai({ model: 'plain', input: texts.map((text) => `passage: ${text}`) }),
      await openai({ model: 'plain', input: texts.map((text) => `query: ${text}`) }),
    ];
    texts.forEach((_, i) => {
      close(passage[i], prefixedPassage[i]);
      close(query[i], prefixedQuery[i]);
    });
    close((await openai({ model: 'e5-like', input: texts, input_type: 'passage' }))[0], passage[0]);
  });

  it("takes TEI's prompt_name the same way, and leaves a model without prefixes as it is", async () => {
    close((await tei('e5-like', { inputs: 'a cat', prompt_name: 'query' }))[0], (await openai({ model: 'plain', input: 'query: a cat' }))[0]);
    close((await tei('e5-like', { inputs: 'a cat' }))[0], (await openai({ model: 'plain', input: 'passage: a cat' }))[0]);
    close((await tei('plain', { inputs: 'a cat', prompt_name: 'query' }))[0], (await openai({ model: 'plain', input: 'a cat', input_type: 'query' }))[0]);
    close((await openai({ model: 'plain', input: 'a cat', input_type: 'query' }))[0], (await openai({ model: 'plain', input: 'a cat' }))[0]);
  });

  it('refuses an input_type or prompt_name other than query and passage', async () => {
    const openaiBad = await app.request.post('/v1/embeddings').set('Authorization', bearer()).send({ model: 'e5-like', input: 'x', input_type: 'document' });
    expect(openaiBad.status).to.equal(400);
    expect(openaiBad.body.error.message).to.match(/input_type/);
    const teiBad = await app.request.post('/embed?model=e5-like').set('Authorization', bearer()).send({ inputs: 'x', prompt_name: 'classification' });
    expect(teiBad.status).to.equal(400);
  });

  it('pools CLS into another unit-length vector than mean pooling, and lists the input types of a prefixed model', async () => {
    const [mean] = await openai({ model: 'plain', input: 'a cat sat' });
    const [cls] = await openai({ model: 'cls-pooled', input: 'a cat sat' });
    expect(cls!.reduce((sum, x) => sum + x * x, 0)).to.be.closeTo(1, 1e-4);
    expect(cls).to.not.deep.equal(mean);
    const models = (await app.request.get('/v1/models').set('Authorization', bearer())).body.data as Array<{ id: string; input_types?: string[] }>;
    expect(models.find((model) => model.id === 'e5-like')?.input_types).to.deep.equal(['passage', 'query']);
    expect(models.find((model) => model.id === 'plain')).to.not.have.property('input_types');
  });
});
