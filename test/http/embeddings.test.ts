/** /v1/embeddings (OpenAI) and TEI's /embed and /predict on the real all-MiniLM-L6-v2 (npm run test-models). */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Manifest } from '../../src/inference/manifest.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

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
