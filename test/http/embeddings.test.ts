/** /v1/embeddings (OpenAI) and TEI's /embed and /predict on the real all-MiniLM-L6-v2 (npm run test-models). */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Manifest } from '../../src/inference/manifest.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { bearer, createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';

const MODELS_DIR = join(REPO_ROOT, 'models');
const committed = JSON.parse(readFileSync(join(MODELS_DIR, 'models.json'), 'utf8')) as Manifest;
const pick = (ids: string[]) => committed.models.filter((entry) => ids.includes(entry.id));

describe('embeddings: OpenAI /v1/embeddings and TEI /embed, /predict (real MiniLM)', () => {
  let app: TestApp;
  before(async function () {
    // Real weights: `npm run test-models` installs all-MiniLM-L6-v2.
    if (!existsSync(join(MODELS_DIR, 'all-MiniLM-L6-v2', '.installed.json'))) this.skip();
    app = await createTestApp({
      manifest: {
        models: pick(['minilm-embeddings', 'minilm-sentiment']),
        aliases: { 'text-embedding-3-small': { task: 'embeddings', prefer: ['minilm-embeddings'] } },
      },
      modelsDir: MODELS_DIR,
    });
  });
  after(() => app?.close());
  const embed = (body: object) => app.request.post('/v1/embeddings').set('Authorization', bearer()).send(body);
  const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

  it('answers the OpenAI shape, names the model an alias stands for, and puts similar texts close', async () => {
    const res = await embed({
      model: 'text-embedding-3-small',
      input: ['A cat sits on the mat.', 'A kitten is sitting on a rug.', 'Stock markets fell sharply today.'],
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.include({ object: 'list', model: 'minilm-embeddings', usage: { prompt_tokens: 0, total_tokens: 0 } });
    const [cat, kitten, stocks] = res.body.data.map((item: { embedding: number[] }) => item.embedding) as number[][];
    expect(res.body.data.map((item: { index: number; object: string }) => [item.index, item.object])).to.deep.equal([
      [0, 'embedding'],
      [1, 'embedding'],
      [2, 'embedding'],
    ]);
    expect(cat).to.have.length(384);
    expect(cosine(cat!, cat!)).to.be.closeTo(1, 1e-4);
    expect(cosine(cat!, kitten!)).to.be.greaterThan(cosine(cat!, stocks!) + 0.3);
  });

  describe('OpenAI-sized batches through the official openai Node SDK', () => {
    let server: Server;
    let client: OpenAI;
    before(async () => {
      server = createServer(app.app.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      client = new OpenAI({ apiKey: TEST_API_KEY, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, maxRetries: 0 });
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('embeds 2048 inputs in one call (the AI SDK sends that many), each vector in its place', async function () {
      // 2048 real forward passes: seconds on an idle machine, far longer when CI shares its cores.
      this.timeout(90_000);
      // Short texts: what is checked is where each vector lands, which their length does not change.
      const texts = Array.from({ length: 2048 }, (_, i) => `${i % 2 ? 'cat' : 'market'} ${i}`);
      // Without encoding_format the SDK asks for base64 and decodes the float32 itself.
      const res = await client.embeddings.create({ model: 'text-embedding-3-small', input: texts });
      expect(res.model).to.equal('minilm-embeddings');
      expect(res.data.map((item) => item.index)).to.deep.equal(texts.map((_, i) => i));
      expect(res.data.every((item) => item.embedding.length === 384)).to.equal(true);
      for (const at of [0, 1, 2047]) {
        const alone = (await embed({ model: 'minilm-embeddings', input: texts[at]! })).body.data[0].embedding as number[];
        expect(cosine(alone, res.data[at]!.embedding)).to.be.closeTo(1, 1e-4);
      }
    });

    it('answers a float batch larger than one slice of the streamed answer as one JSON document', async () => {
      const texts = Array.from({ length: 150 }, (_, i) => `sentence number ${i}`);
      const res = await client.embeddings.create({ model: 'minilm-embeddings', input: texts, encoding_format: 'float' });
      expect(res.data).to.have.length(150);
      expect(res.data[149]).to.include({ index: 149, object: 'embedding' });
      expect(res.usage).to.deep.equal({ prompt_tokens: 0, total_tokens: 0 });
    });

    it('refuses 2049 inputs (400) and texts over a million characters together (413), naming the limit', async () => {
      const tooMany = await embed({ model: 'minilm-embeddings', input: Array.from({ length: 2049 }, () => 'a') });
      expect(tooMany.status).to.equal(400);
      expect(tooMany.body.error.message).to.match(/"input" must be .*2048/);
      const tooLong = await embed({ model: 'minilm-embeddings', input: Array.from({ length: 101 }, () => 'word '.repeat(2_000)) });
      expect(tooLong.status).to.equal(413);
      expect(tooLong.body.error.message).to.equal('"input" holds 1010000 characters in 101 texts; the limit is 1000000 per request: send smaller batches');
    });
  });

  it('encodes base64 as float32 little-endian, and checks dimensions and token arrays', async () => {
    const floats = (await embed({ model: 'minilm-embeddings', input: 'hello' })).body.data[0].embedding as number[];
    const encoded = (await embed({ model: 'minilm-embeddings', input: 'hello', encoding_format: 'base64' })).body.data[0].embedding as string;
    const decoded = new Float32Array(new Uint8Array(Buffer.from(encoded, 'base64')).buffer);
    expect(Array.from(decoded)).to.deep.equal(floats.map(Math.fround));
    expect((await embed({ model: 'minilm-embeddings', input: 'hello', dimensions: 384 })).status).to.equal(200);
    expect((await embed({ model: 'minilm-embeddings', input: 'hello', dimensions: 256 })).body.error.message).to.match(/"dimensions" must be 384/);
    expect((await embed({ model: 'minilm-embeddings', input: [[1, 2, 3]] })).body.error.message).to.match(/token arrays are not accepted/);
  });

  it('serves TEI /embed and /predict with a Bearer key, on the installed models', async () => {
    expect((await app.request.post('/embed').send({ inputs: 'hello' })).status).to.equal(401);
    // Other spellings match no route (routers are exact and case-sensitive): none reaches a model without a key.
    for (const path of ['/EMBED', '/embed/', '/%65mbed', '//embed', '/Predict', '/predict/.']) {
      const res = await app.request.post(path).send({ inputs: 'hello' });
      expect([401, 404], path).to.include(res.status);
    }
    const vectors = (
      await app.request
        .post('/embed')
        .set('Authorization', bearer())
        .send({ inputs: ['hello', 'world'] })
    ).body as number[][];
    expect(vectors).to.have.length(2);
    expect(vectors[0]).to.have.length(384);
    const one = await app.request.post('/predict').set('Authorization', bearer()).send({ inputs: 'I loved this film, wonderful!' });
    expect(one.body[0]).to.include({ label: 'positive' });
    const batch = await app.request
      .post('/predict')
      .set('Authorization', bearer())
      .send({ inputs: ['Terrible, boring film.', 'Great fun!'] });
    expect(batch.body.map((scores: { label: string }[]) => scores[0]!.label)).to.deep.equal(['negative', 'positive']);
    const pairs = await app.request
      .post('/predict')
      .set('Authorization', bearer())
      .send({ inputs: [['a', 'b']] });
    expect(pairs.status).to.equal(400);
    expect(pairs.body.error).to.match(/cross-encoder/);
  });

  it("answers TEI's root route as huggingface_hub's InferenceClient(model=<root url>) sends it: embed by default, predict for a classifier", async () => {
    // feature_extraction() POSTs {"inputs": …} (its parameters at the root, none by default) to the URL as given.
    const hub = (path: string, body: object) => app.request.post(path).set('Authorization', bearer()).set('Content-Type', 'application/json').send(body);
    expect((await app.request.post('/').send({ inputs: 'hello' })).status).to.equal(401);
    const vectors = await hub('/', { inputs: 'Today is a sunny day.' });
    expect(vectors.status, vectors.text).to.equal(200);
    expect(vectors.body).to.have.length(1);
    expect(vectors.body[0]).to.have.length(384);
    const same = (await hub('/embed', { inputs: 'Today is a sunny day.' })).body as number[][];
    expect(cosine(vectors.body[0], same[0]!)).to.be.closeTo(1, 1e-5);
    // text_classification() with the root of a server serving a classifier (here picked by ?model=).
    const labels = await hub('/?model=minilm-sentiment', { inputs: 'I like you. I love you', parameters: {} });
    expect(labels.body[0][0]).to.include({ label: 'positive' });
    // GET / stays the greeting, open.
    expect((await app.request.get('/')).text).to.match(/^Hello/);
    const wrongTask = await hub('/?model=nope', { inputs: 'x' });
    expect(wrongTask.status).to.equal(404);
    expect(wrongTask.body.error).to.be.a('string');
  });

  it("answers GET /info in TEI's shape for the model / serves, and /rerank with a 424 naming the missing cross-encoder", async () => {
    expect((await app.request.get('/info')).status).to.equal(401);
    // No other spelling of the new TEI routes reaches a model without a key either.
    for (const [method, path] of [
      ['get', '/Info'],
      ['get', '/info/'],
      ['get', '/%69nfo'],
      ['get', '//info'],
      ['post', '/rerank/.'],
      ['post', '/RERANK'],
      ['post', '//'],
      ['post', '/.'],
      ['post', '/%2e'],
      ['post', '/?model=minilm-embeddings'],
    ] as const) {
      const res = await app.request[method](path).send({ inputs: 'hello' });
      expect([401, 404, 405], `${method} ${path}`).to.include(res.status);
    }
    const embedding = await app.request.get('/info').set('Authorization', bearer());
    expect(embedding.status, embedding.text).to.equal(200);
    expect(embedding.body).to.deep.include({
      model_id: 'minilm-embeddings',
      model_dtype: 'fp32',
      served_model_name: 'minilm-embeddings',
      model_type: { embedding: { pooling: 'mean' } },
      max_input_length: 256,
      max_client_batch_size: 256,
      auto_truncate: true,
      version: '1.9.3',
    });
    const classifier = (await app.request.get('/info?model=minilm-sentiment').set('Authorization', bearer())).body;
    expect(classifier.model_type.classifier.id2label).to.deep.equal({ '0': 'positive', '1': 'negative' });
    expect(classifier.model_type.classifier.label2id).to.deep.equal({ positive: 0, negative: 1 });
    const rerank = await app.request
      .post('/rerank')
      .set('Authorization', bearer())
      .send({ query: 'What is Deep Learning?', texts: ['Deep Learning is…'] });
    expect(rerank.status).to.equal(424);
    expect(rerank.body.error).to.match(/needs a cross-encoder \(re-ranker\) model, and this server has none/);
  });

  it("answers huggingface_hub's text_classification request (Inference API task shape) nested, best first, cut to top_k", async () => {
    // The exact bodies InferenceClient(model=".../predict").text_classification() sends (huggingface_hub 0.36).
    const all = await app.request.post('/predict').set('Authorization', bearer()).send({ inputs: 'I like you. I love you', parameters: {} });
    expect(all.body).to.have.length(1);
    expect(all.body[0].map((s: { label: string }) => s.label)).to.deep.equal(['positive', 'negative']);
    const top = await app.request
      .post('/predict')
      .set('Authorization', bearer())
      .send({ inputs: 'What a terrible, boring film.', parameters: { top_k: 1 } });
    expect(top.body).to.have.length(1);
    expect(top.body[0]).to.have.length(1);
    expect(top.body[0][0]).to.include({ label: 'negative' });
    const sigmoid = await app.request
      .post('/predict')
      .set('Authorization', bearer())
      .send({ inputs: 'x', parameters: { function_to_apply: 'sigmoid' } });
    expect(sigmoid.status).to.equal(400);
    expect(sigmoid.body.error).to.match(/function_to_apply/);
  });
});
