import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '../../src/errors.js';
import { LIBRETRANSLATE_PATHS } from '../../src/http/routes/libretranslate-routes.js';
import { TEI_PATHS } from '../../src/http/routes/tei-routes.js';
import { REALTIME_PATH } from '../../src/http/realtime/realtime-operations.js';
import { createApp } from '../../src/http/create-app.js';
import { createLogger } from '../../src/logger.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { declareRoute, documentedRouter } from '../../src/http/operation.js';
import { createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { registeredRoutes } from '../helpers/registered-routes.js';

type Json = Record<string, any>;
/** The document of the app under test, as served (set in the first `before`). */
let doc: Json;
const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/** Every operation in the document as [METHOD, path, operation]. */
const operations = (): Array<[string, string, Json]> =>
  Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => [m.toUpperCase(), path, item[m]] as [string, string, Json]),
  );

describe('OpenAPI document', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp();
    doc = (await app.request.get('/openapi.json')).body;
  });
  after(() => app.close());

  it('is served at /openapi.json as OpenAPI 3.1 JSON, built from the limits the app was created with', async () => {
    const res = await app.request.get('/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    expect(res.body.openapi).to.equal('3.1.0');
    const koa = createApp({ db: app.db, models: app.models, config: app.config, logger: createLogger('silent') });
    expect(res.body).to.deep.equal(JSON.parse(JSON.stringify(buildOpenApiDocument(koa.operations, app.config.limits))));
  });

  it('documents the limits of the app it describes, not the defaults', async () => {
    const limits = {
      maxJsonBytes: 3 * 1024 * 1024,
      maxAudioBytes: 7 * 1024 * 1024,
      maxClassificationChars: 1234,
      maxTranslationChars: 2345,
      maxSpeechInputChars: 345,
    };
    const other = await createTestApp({ limits });
    try {
      const custom = (await other.request.get('/openapi.json')).body as Json;
      const schema = (name: string) => custom.components.schemas[name];
      expect(schema('ClassificationRequest').properties.query.anyOf.map((shape: Json) => shape.maxLength ?? shape.items.maxLength)).to.deep.equal([1234, 1234]);
      expect(schema('TranslationRequest').properties.text.maxLength).to.equal(2345);
      expect(schema('SpeechRequest').properties.input).to.include({ maxLength: 345, 'x-too-large-status': 413 });
      expect(custom.paths['/v1/classifications'].post.responses['413'].description).to.include('3 MB');
      expect(custom.paths['/v1/transcriptions'].post.requestBody.description).to.include('7 MB');
      expect(custom.paths['/v1/text-to-speech'].post.responses['413'].description).to.include('345 characters');
      const docs = (await other.request.get('/docs')).text;
      expect(docs).to.include('max length 1234');
      // And the validator enforces what the document says.
      const res = await other.request
        .post('/v1/text-to-speech')
        .set('Authorization', `Bearer ${TEST_API_KEY}`)
        .send({ model: 'any', input: 'a'.repeat(346) });
      expect(res.status).to.equal(413);
      expect(res.body.error.message).to.equal('"input" is 346 characters; the limit is 345');
    } finally {
      await other.close();
    }
  });

  it('documents every route registered in the app', () => {
    const koa = createApp({ db: app.db, models: app.models, config: app.config, logger: createLogger('silent') });
    const routes = registeredRoutes(koa);
    expect(routes.length).to.be.greaterThan(10);
    const documented = new Set(operations().map(([method, path]) => `${method} ${path}`));
    const missing = routes.map(({ method, path }) => `${method} ${path}`).filter((route) => !documented.has(route));
    expect(missing, 'routes that declare no Operation').to.deep.equal([]);
    // The WebSocket upgrade is served beside Koa's routers (realtime-endpoint.ts), not by them.
    const registered = new Set([...routes.map(({ method, path }) => `${method} ${path}`), `GET ${REALTIME_PATH}`]);
    const extra = [...documented].filter((route) => !registered.has(route));
    expect(extra, 'documented routes that the app does not serve').to.deep.equal([]);
  });

  it('reads every query parameter and header an audio operation documents, by the name documented', async () => {
    // A value the parameter's schema refuses: the route answers 400 naming the field only if it
    // read the parameter by that name; one it ignored lets the request reach the model lookup (404).
    const refused = (schema: Json): string | undefined =>
      schema.enum
        ? 'not-a-listed-value'
        : schema.maximum !== undefined
          ? String(schema.maximum + 1)
          : schema.exclusiveMaximum !== undefined
            ? String(schema.exclusiveMaximum + 1)
            : schema.maxLength !== undefined
              ? 'x'.repeat(schema.maxLength + 1)
              : undefined;
    const audioOperations = operations().filter(([, , op]) => op.requestBody?.content?.['audio/wav']);
    expect(audioOperations.map(([method, path]) => `${method} ${path}`)).to.have.length(4);
    for (const [method, path, op] of audioOperations) {
      for (const parameter of (op.parameters as Json[]).filter((candidate) => candidate.in === 'query' || candidate.in === 'header')) {
        const field = parameter.in === 'query' ? parameter.name : /`(\w+)` query parameter/.exec(parameter.description)?.[1];
        expect(field, `${path} ${parameter.name} names its field`).to.be.a('string');
        // Read, then overridden: this route always translates, as its description says.
        if (path === '/v1/audio/translations' && field === 'task') continue;
        const value = refused(parameter.schema) ?? `probe-${field}`;
        const query = new URLSearchParams(field === 'model' ? {} : { model: 'probe-model' });
        if (parameter.in === 'query') query.set(parameter.name, value);
        let request = app.request.post(`${path}?${query}`).set('Authorization', `Bearer ${TEST_API_KEY}`).set('Content-Type', 'audio/wav');
        if (parameter.in === 'header') request = request.set(parameter.name, value);
        const res = await request.send(Buffer.from('RIFF'));
        const where = `${method} ${path} ${parameter.in} ${parameter.name}: ${res.status} ${res.body.error?.message}`;
        if (refused(parameter.schema) === undefined) expect(res.body.error.message, where).to.include(value);
        else expect([res.status, res.body.error.message.includes(`"${field}"`)], where).to.deep.equal([400, true]);
      }
    }
  });

  it('declares a route and its Operation at the same path, and refuses path parameters it does not document', () => {
    const router = documentedRouter({ prefix: '/v1' });
    const declaration = { method: 'get', path: '/things/:id', tags: ['t'], summary: 'A thing', responses: {} } as const;
    expect(() => declareRoute(router, declaration, () => {})).to.throw('GET /v1/things/{id} documents path parameters [], its path has [id]');
    declareRoute(router, { ...declaration, parameters: [{ name: 'id', in: 'path', required: true }] }, () => {});
    expect(router.operations.map(({ method, path }) => `${method} ${path}`)).to.deep.equal(['get /v1/things/{id}']);
    expect(router.stack.map((layer) => [layer.methods, layer.path])).to.deep.equal([[['HEAD', 'GET'], '/v1/things/:id']]);
  });

  it('lists every error code, with its description, and uses each one somewhere', () => {
    expect(doc['x-error-codes']).to.deep.equal(Object.entries(ERROR_CODES).map(([code, description]) => ({ code, description })));
    expect(doc.components.schemas.ErrorDetail.properties.code.enum).to.deep.equal(Object.keys(ERROR_CODES));
    const used = new Set(operations().flatMap(([, , op]) => Object.values(op.responses as Record<string, Json>).flatMap((r) => r['x-error-codes'] ?? [])));
    for (const code of Object.keys(ERROR_CODES)) {
      const mentioned = used.has(code) || doc.info.description.includes(`\`${code}\``);
      expect(mentioned, `${code} is never said to be returned`).to.equal(true);
    }
  });

  it('secures every operation that needs a key (/v1, /metrics, the LibreTranslate API but its open /languages, TEI but the greeting at GET /) with the bearer scheme, and no area A operation', () => {
    expect(doc.components.securitySchemes.bearerAuth).to.deep.include({ type: 'http', scheme: 'bearer' });
    for (const [method, path, op] of operations()) {
      const secured = JSON.stringify(op.security ?? []) === JSON.stringify([{ bearerAuth: [] }]);
      expect(secured, `${method} ${path}`).to.equal(
        path.startsWith('/v1/') ||
          path === '/metrics' ||
          (LIBRETRANSLATE_PATHS.has(path) && path !== '/languages' && path !== '/spec') ||
          (TEI_PATHS.has(path) && !(path === '/' && method.toLowerCase() === 'get')),
      );
      if (path.startsWith('/v1/')) expect(op.responses, `${method} ${path}`).to.have.property('401');
    }
  });

  it('names the two APIs as the README does, in the document and on /docs', async () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const names = ['the key-protected /v1 API', 'the users API'];
    for (const name of names) expect(readme.toLowerCase()).to.include(name.toLowerCase());
    const page = (await app.request.get('/docs')).text;
    for (const text of [JSON.stringify(doc), page]) {
      expect(text).not.to.match(/\barea [AB]\b/i);
      for (const name of names) expect(text.toLowerCase()).to.include(name.toLowerCase());
    }
  });

  it('documents users API errors as plain text, /v1 API errors as the JSON error object, LibreTranslate ones as {"error"}, TEI ones with error_type', () => {
    for (const [method, path, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        const types = Object.keys(response.content ?? {});
        const json = path.startsWith('/v1/') || LIBRETRANSLATE_PATHS.has(path) || TEI_PATHS.has(path);
        expect(types, `${method} ${path} ${status}`).to.deep.equal(json ? ['application/json'] : ['text/plain']);
        if (LIBRETRANSLATE_PATHS.has(path)) expect(response.content['application/json'].schema.required).to.deep.equal(['error']);
        if (TEI_PATHS.has(path)) expect(response.content['application/json'].schema.required).to.deep.equal(['error', 'error_type']);
        if (path.startsWith('/v1/')) expect(response.content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/Error' });
      }
    }
  });

  it('resolves every $ref', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const r of refs) {
      const name = r.slice(8, -1).replace('#/components/schemas/', '');
      expect(doc.components.schemas, r).to.have.property(name);
    }
  });

  it('has the wire fields SPEC names for each body', () => {
    const schema = (name: string) => doc.components.schemas[name];
    expect(schema('UserInput').required).to.deep.equal(['name', 'email']);
    expect(schema('User').required).to.include.members(['id', 'name', 'email']);
    expect(schema('ClassificationRequest').required).to.deep.equal(['model', 'query']);
    expect(schema('TranslationRequest').required).to.deep.equal(['model', 'text', 'target_language']);
    expect(schema('Transcript').required).to.deep.equal(['id', 'object', 'created', 'model', 'transcript']);
    expect(schema('SpeechRequest').required).to.deep.equal(['model', 'input']);
    expect(doc.paths['/v1/text-to-speech'].post.responses['200'].content).to.have.property('audio/mpeg');
    expect(doc.paths['/v1/completions'].post.requestBody.content).to.have.property('audio/mpeg');
    expect(doc.paths['/users'].post.responses['201'].headers).to.have.property('Location');
  });
});

describe('GET /docs', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp();
    doc = (await app.request.get('/openapi.json')).body;
  });
  after(() => app.close());

  it('is a self-contained HTML page covering every operation and error code', async () => {
    const res = await app.request.get('/docs');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/html/);
    expect(res.text).to.match(/^<!doctype html>/);
    for (const [method, path] of operations()) expect(res.text).to.include(`${method} ${path.replace(/[{}]/g, (c) => c)}`);
    for (const code of Object.keys(ERROR_CODES)) expect(res.text).to.include(`<code>${code}</code>`);
  });

  it('loads nothing from elsewhere (the server is offline)', async () => {
    const res = await app.request.get('/docs');
    expect(res.text).to.not.match(/<script|<link|<img|@import|url\(/i);
    expect(res.text).to.not.match(/(src|href)="(https?:)?\/\//i);
  });
});
