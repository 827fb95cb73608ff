/** /v1/embeddings (OpenAI) and TEI's /embed and /predict on the real all-MiniLM-L6-v2 (npm run test-models). */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
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

/** OpenAI's own schemas (test/fixtures/openai-openapi): answers and our requests are checked against them. */
const openai = new Ajv2020({ strict: false, validateFormats: false }).addSchema(
  JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/openai-openapi/openapi.subset.json'), 'utf8')),
  'openai',
);
function expectSpec(schema: 'CreateEmbeddingResponse' | 'CreateEmbeddingRequest', value: unknown): void {
  const validate = openai.getSchema(`openai#/components/schemas/${schema}`)!;
  expect(validate(value), `${schema}: ${JSON.stringify(validate.errors)}`).to.equal(true);
}
/** The ids LangChain's OpenAIEmbeddings sends: tiktoken's cl100k_base. */
const tiktoken = new Tiktoken(cl100k);

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

  it('encodes base64 as float32 little-endian', async () => {
    const floats = (await embed({ model: 'minilm-embeddings', input: 'hello' })).body.data[0].embedding as number[];
    const encoded = (await embed({ model: 'minilm-embeddings', input: 'hello', encoding_format: 'base64' })).body.data[0].embedding as string;
    const decoded = new Float32Array(new Uint8Array(Buffer.from(encoded, 'base64')).buffer);
    expect(Array.from(decoded)).to.deep.equal(floats.map(Math.fround));
  });

  describe('dimensions: shortened as OpenAI shortens, the first values scaled back to unit length', () => {
    const norm = (vector: ArrayLike<number>) => Math.sqrt(Array.from(vector).reduce((sum, x) => sum + x * x, 0));

    it('answers every width from 1 to 384, in float and in base64, each the normalised head of the full vector', async () => {
      const full = (await embed({ model: 'text-embedding-3-small', input: 'A cat sits on the mat.' })).body.data[0].embedding as number[];
      for (const dimensions of [384, 256, 64, 1]) {
        const body = { model: 'text-embedding-3-small', input: ['A cat sits on the mat.'], dimensions };
        expectSpec('CreateEmbeddingRequest', body);
        const res = await embed(body);
        expect(res.status, res.text).to.equal(200);
        expectSpec('CreateEmbeddingResponse', res.body);
        const vector = res.body.data[0].embedding as number[];
        expect(vector).to.have.length(dimensions);
        expect(norm(vector)).to.be.closeTo(1, 1e-5);
        const head = full.slice(0, dimensions);
        vector.forEach((value, i) => expect(value).to.be.closeTo(head[i]! / norm(head), 1e-6));
        const base64 = await embed({ ...body, encoding_format: 'base64' });
        const decoded = new Float32Array(new Uint8Array(Buffer.from(base64.body.data[0].embedding as string, 'base64')).buffer);
        expect(Array.from(decoded)).to.deep.equal(vector.map(Math.fround));
      }
    });

    it('refuses 0, 385 and a fraction with a 400 naming "dimensions" (and the width, once the model has answered)', async () => {
      const over = await embed({ model: 'minilm-embeddings', input: 'hello', dimensions: 385 });
      expect(over.status).to.equal(400);
      expect(over.body.error.message).to.equal('"dimensions" must be from 1 to 384 for minilm-embeddings: its vectors have 384 values, and are only shortened');
      for (const dimensions of [0, -3]) {
        const res = await embed({ model: 'minilm-embeddings', input: 'hello', dimensions });
        expect(res.status, String(dimensions)).to.equal(400);
        expect(res.body.error.message).to.equal('"dimensions" must be a whole number from 1 to the model’s width (384 for MiniLM)');
      }
      const fraction = await embed({ model: 'minilm-embeddings', input: 'hello', dimensions: 2.5 });
      expect([fraction.status, fraction.body.error.message]).to.deep.equal([400, '"dimensions" must be a integer']);
    });
  });

  describe("input as token ids (cl100k_base), as LangChain's OpenAIEmbeddings sends it", () => {
    const texts = ['A cat sits on the mat.', 'Naïve café: 日本語のテキスト 🦊', 'Stock markets fell sharply today.'];
    const vectorsOf = (res: { body: { data: { embedding: number[] }[] } }) => res.body.data.map((item) => item.embedding);

    it('decodes an array of token arrays and a single one with an OpenAI name, giving the vectors of the texts themselves', async () => {
      const asText = vectorsOf(await embed({ model: 'text-embedding-3-small', input: texts }));
      const body = { model: 'text-embedding-3-small', input: texts.map((text) => tiktoken.encode(text)) };
      expectSpec('CreateEmbeddingRequest', body);
      const res = await embed(body);
      expect(res.status, res.text).to.equal(200);
      expectSpec('CreateEmbeddingResponse', res.body);
      expect(res.body.model).to.equal('minilm-embeddings');
      vectorsOf(res).forEach((vector, i) => expect(cosine(vector, asText[i]!)).to.be.closeTo(1, 1e-5));
      const flat = { model: 'text-embedding-3-small', input: tiktoken.encode(texts[1]!), dimensions: 128 };
      expectSpec('CreateEmbeddingRequest', flat);
      const one = await embed(flat);
      expect(one.status, one.text).to.equal(200);
      expectSpec('CreateEmbeddingResponse', one.body);
      const short = (await embed({ model: 'text-embedding-3-small', input: texts[1], dimensions: 128 })).body.data[0].embedding as number[];
      expect(cosine(vectorsOf(one)[0]!, short)).to.be.closeTo(1, 1e-5);
    });

    it('decodes each array on its own: a character cut between two arrays is U+FFFD in both, as tiktoken decodes it, not joined', async () => {
      const ids = tiktoken.encode('🦊 fox'); // the fox is three tokens of its four bytes
      const res = await embed({ model: 'text-embedding-3-small', input: [ids.slice(0, 1), ids.slice(1)] });
      expect(res.status, res.text).to.equal(200);
      const expected = vectorsOf(await embed({ model: 'minilm-embeddings', input: [tiktoken.decode(ids.slice(0, 1)), tiktoken.decode(ids.slice(1))] }));
      expect(tiktoken.decode(ids.slice(0, 1))).to.equal('\uFFFD');
      vectorsOf(res).forEach((vector, i) => expect(cosine(vector, expected[i]!)).to.be.closeTo(1, 1e-5));
    });

    it('works through the official openai Node SDK (which asks for base64)', async () => {
      const server = createServer(app.app.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const client = new OpenAI({ apiKey: TEST_API_KEY, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, maxRetries: 0 });
        const res = await client.embeddings.create({ model: 'text-embedding-3-small', input: texts.map((text) => tiktoken.encode(text)), dimensions: 256 });
        expect(res.data.map((item) => item.embedding.length)).to.deep.equal([256, 256, 256]);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('refuses ids with a model named by its own id, saying why and what to send instead', async () => {
      const res = await embed({ model: 'minilm-embeddings', input: [tiktoken.encode('hello')] });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.equal(
        '"input" holds token ids, but "minilm-embeddings" names no OpenAI model, so no tokenizer is claimed to read them with (this server\'s models have their own). ' +
          'Send the text itself, or name "text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002" as "model", whose cl100k_base ids (as tiktoken makes them) are decoded here. ' +
          'LangChain sends ids unless OpenAIEmbeddings(check_embedding_ctx_length=False).',
      );
      expect((await embed({ model: 'no-such-model', input: [[1]] })).status).to.equal(404);
    });

    it('refuses ids that are no token, and shapes outside the spec, with a 400 naming the item', async () => {
      const cases: [unknown, string][] = [
        [[[9906, 100256]], '"input[0][1]" is 100256, which is no token of cl100k_base'],
        [[9906, 100300], '"input[1]" is 100300, which is no token of cl100k_base'],
        [[[9906], [1.5]], '"input[1][0]" must be a token id (an integer from 0), not 1.5'],
        [[9906, -1], '"input[1]" must be a token id (an integer from 0), not -1'],
        [[9906, '12'], '"input[1]" must be a token id (an integer from 0), not a string'],
        [[[9906], []], '"input[1]" must hold at least one token id'],
        [[[9906], 12], '"input[1]" must be an array of token ids, as the other items are'],
        [['hello', 12], '"input[1]" must be a string'],
      ];
      for (const [input, message] of cases) {
        const res = await embed({ model: 'text-embedding-3-small', input });
        expect(res.status, JSON.stringify(input)).to.equal(400);
        expect(res.body.error.message).to.equal(message);
      }
    });

    it("holds OpenAI's limits: 2048 arrays and 8192 ids each (400), 300,000 ids together (413), and what they decode to (413)", async function () {
      this.timeout(30_000);
      const tooMany = await embed({ model: 'text-embedding-3-small', input: Array.from({ length: 2049 }, () => [9906]) });
      expect([tooMany.status, tooMany.body.error.message]).to.deep.equal([400, '"input" holds 2049 token arrays; the limit is 2048']);
      const tooLong = await embed({ model: 'text-embedding-3-small', input: [[9906], Array.from({ length: 8193 }, () => 9906)] });
      expect([tooLong.status, tooLong.body.error.message]).to.deep.equal([400, '"input[1]" holds 8193 tokens; the limit is 8192 per input']);
      const tooLongFlat = await embed({ model: 'text-embedding-3-small', input: Array.from({ length: 8193 }, () => 9906) });
      expect([tooLongFlat.status, tooLongFlat.body.error.message]).to.deep.equal([400, '"input" holds 8193 tokens; the limit is 8192 per input']);
      const full = Array.from({ length: 8192 }, () => 9906);
      const tooManyTokens = await embed({ model: 'text-embedding-3-small', input: Array.from({ length: 37 }, () => full) });
      expect(tooManyTokens.status).to.equal(413);
      expect(tooManyTokens.body.error.message).to.equal('"input" holds 303104 tokens in 37 arrays; the limit is 300000 per request: send smaller batches');
      // 58040 is 128 spaces, cl100k_base's longest token: 36 x 8192 of them would be 37.7 million characters.
      const spaces = Array.from({ length: 8192 }, () => 58040);
      const huge = await embed({ model: 'text-embedding-3-small', input: Array.from({ length: 36 }, () => spaces) });
      expect(huge.status).to.equal(413);
      expect(huge.body.error.message).to.equal(
        '"input" decodes to more than 2400000 characters (3145728 in its first 3 token arrays); the limit is 2400000 per request: send smaller batches',
      );
    });
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
