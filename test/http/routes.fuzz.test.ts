/**
 * Property tests over the HTTP surface with the fixture models: whatever a client sends to any
 * route (random methods, media types, bodies, query strings, headers), the answer is a
 * documented status in the right error format, never a 5xx other than the documented 503s,
 * never a stack or a file path, and never slower than a bound.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { join } from 'node:path';
import { ERROR_CODES } from '../../src/errors.js';
import { isApiPath } from '../../src/http/api-boundary.js';
import { LIBRETRANSLATE_PATHS } from '../../src/http/routes/libretranslate-routes.js';
import { TEI_PATHS } from '../../src/http/routes/tei-routes.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { fuzzRuns } from '../helpers/fuzz-runs.js';
import { registeredRoutes } from '../helpers/registered-routes.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';
import { FIXTURE_MODELS } from '../helpers/fixture-models.js';

const MANIFEST: Manifest = {
  models: [
    FIXTURE_MODELS.sentiment,
    FIXTURE_MODELS.marian,
    { id: 'whisper-tiny-random', task: 'speech-to-text', engine: 'transformers-asr', description: 'fixture', license: 'MIT', options: { maxNewTokens: 4 } },
    { id: 'piper-random', task: 'text-to-speech', engine: 'piper', description: 'fixture', license: 'test', options: { threads: 1 } },
    { id: 'absent', task: 'text-to-speech', engine: 'piper', description: 'not installed', license: 'test' },
  ],
};
const MODEL_IDS = [...MANIFEST.models.map((m) => m.id), 'nope', '', '../../etc/passwd'];
const DOCUMENTED_503 = new Set(['model_not_installed', 'model_unavailable', 'inference_failed', 'server_busy']);
const ANSWER_BOUND_MS = 20_000;

describe('HTTP routes under random input (property)', function () {
  this.timeout(10 * 60_000);
  let app: TestApp;
  let routes: { method: string; path: string }[];

  before(async () => {
    app = await createTestApp({ manifest: MANIFEST, modelsDir: join(REPO_ROOT, 'test/fixtures/models') });
    routes = registeredRoutes(app.app).map(({ method, path }) => ({ method, path }));
  });
  after(() => app.close());

  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('^$@#*\\<>/[]{}', '\u0000', '\ud800', 'a@b.c', ''),
  );
  const value = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }), fc.constantFrom(...MODEL_IDS));
  const fields = [
    'model',
    'text',
    'query',
    'input',
    'labels',
    'target_language',
    'source_language',
    'voice',
    'speed',
    'response_format',
    'name',
    'email',
    'language',
    'task',
  ];
  // Mostly plausible requests with one or two odd fields, so cases reach the models too.
  const plausible = fc.record({
    model: fc.constantFrom(...MODEL_IDS),
    text: fc.string({ maxLength: 40 }),
    query: fc.string({ maxLength: 40 }),
    input: fc.string({ maxLength: 40 }),
    target_language: fc.constantFrom('es', 'en', 'xx'),
    name: fc.string({ maxLength: 20 }),
    email: fc.constantFrom('a@b.co', 'x'),
  });
  const jsonObject = fc.tuple(plausible, fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: 3 })).map(([base, odd]) => ({ ...base, ...odd }));
  const body = fc.oneof(
    jsonObject.map((object) => ({ type: 'application/json', data: JSON.stringify(object) })),
    plausible.map((object) => ({ type: 'application/json', data: JSON.stringify(object) })),
    fc.json({ maxDepth: 3 }).map((data) => ({ type: 'application/json', data })),
    fc.string({ maxLength: 200 }).map((data) => ({ type: 'application/json', data })),
    fc.uint8Array({ maxLength: 2_000 }).map((bytes) => ({ type: 'audio/wav', data: Buffer.from(bytes) })),
    fc.uint8Array({ maxLength: 2_000 }).map((bytes) => ({ type: 'multipart/form-data; boundary=xyz', data: Buffer.from(bytes) })),
    fc.string({ maxLength: 100 }).map((data) => ({ type: 'text/plain', data })),
    fc.constant({ type: '', data: '' }),
  );

  it('answers every request with a documented status and error body', async () => {
    const statuses = new Map<number, number>();
    const request = fc.record({
      route: fc.constantFrom(...routes),
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH') }),
      param: fc.oneof(fc.constantFrom(...MODEL_IDS), fc.string({ maxLength: 12 })),
      query: fc.dictionary(fc.constantFrom('model', 'language', 'task'), fc.oneof(text, fc.constantFrom(...MODEL_IDS)), { maxKeys: 3 }),
      body,
      authorised: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ route, method, param, query, body, authorised }) => {
        const path = route.path.replace(/\{\w+\}/g, encodeURIComponent(param) || 'x');
        const verb = (method ?? route.method).toLowerCase() as 'get';
        let call = app.request[verb](path).query(query);
        if (authorised) call = call.set('Authorization', bearer());
        if (body.type) call = call.set('Content-Type', body.type);
        const started = Date.now();
        const res = await (body.type && verb !== 'get' ? call.send(body.data) : call);
        const where = `${verb.toUpperCase()} ${path} ${body.type} → ${res.status} ${(res.text ?? '').slice(0, 200)}`;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(Date.now() - started, where).to.be.below(ANSWER_BOUND_MS);
        expect(res.status, where).to.be.within(200, 599);
        expect(res.text ?? '', where).to.not.match(/\n\s+at |\/work\/|node_modules|\.ts:\d+/);
        if (res.status < 400) return;
        if (isApiPath(path)) {
          expect(res.headers['content-type'], where).to.match(/^application\/json/);
          expect(Object.keys(ERROR_CODES), where).to.include(res.body.error.code);
          if (res.status >= 500) expect(DOCUMENTED_503.has(res.body.error.code) && res.status === 503, where).to.equal(true);
        } else if (LIBRETRANSLATE_PATHS.has(path) || TEI_PATHS.has(path)) {
          // LibreTranslate's and TEI's own error shape.
          expect(res.headers['content-type'], where).to.match(/^application\/json/);
          expect(res.body.error, where).to.be.a('string');
          if (res.status >= 500) expect(res.status, where).to.equal(503);
        } else {
          expect(res.headers['content-type'], where).to.match(/^text\/plain/);
          expect(res.status, where).to.be.below(500);
        }
      }),
      { numRuns: fuzzRuns(150) },
    );
    // The cases must reach past the edge too, not only be refused there.
    expect([...statuses.keys()].filter((status) => status < 300).length, JSON.stringify([...statuses])).to.be.greaterThan(0);
    if (process.env.FUZZ_RUNS) console.log('      statuses:', JSON.stringify(Object.fromEntries([...statuses].sort())));
  });
});
