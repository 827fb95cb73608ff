import { expect } from 'chai';
import { ERROR_CODES } from '../../src/errors.js';
import { createApp } from '../../src/http/create-app.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { createLogger } from '../../src/logger.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { registeredRoutes } from '../helpers/registered-routes.js';

type Json = Record<string, any>;
const doc = openApiDocument as Json;
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
  });
  after(() => app.close());

  it('is served at /openapi.json as OpenAPI 3.1 JSON', async () => {
    const res = await app.request.get('/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    expect(res.body.openapi).to.equal('3.1.0');
    expect(res.body).to.deep.equal(JSON.parse(JSON.stringify(doc)));
  });

  it('documents every route registered in the app', () => {
    const koa = createApp({ db: app.db, models: app.models, config: app.config, logger: createLogger('silent') });
    const routes = registeredRoutes(koa);
    expect(routes.length).to.be.greaterThan(10);
    const documented = new Set(operations().map(([method, path]) => `${method} ${path}`));
    const missing = routes.map(({ method, path }) => `${method} ${path}`).filter((route) => !documented.has(route));
    expect(missing, 'routes missing from src/http/openapi.ts').to.deep.equal([]);
    const registered = new Set(routes.map(({ method, path }) => `${method} ${path}`));
    const extra = [...documented].filter((route) => !registered.has(route));
    expect(extra, 'documented routes that the app does not serve').to.deep.equal([]);
  });

  it('lists every error code, with its description, and uses each one somewhere', () => {
    expect(doc['x-error-codes']).to.deep.equal(Object.entries(ERROR_CODES).map(([code, description]) => ({ code, description })));
    expect(doc.components.schemas.ErrorDetail.properties.code.enum).to.deep.equal(Object.keys(ERROR_CODES));
    const used = new Set(
      operations().flatMap(([, , op]) => Object.values(op.responses as Record<string, Json>).flatMap((r) => r['x-error-codes'] ?? [])),
    );
    for (const code of Object.keys(ERROR_CODES)) {
      const mentioned = used.has(code) || doc.info.description.includes(`\`${code}\``);
      expect(mentioned, `${code} is never said to be returned`).to.equal(true);
    }
  });

  it('secures every /v1 operation with the bearer scheme and no area A operation', () => {
    expect(doc.components.securitySchemes.bearerAuth).to.deep.include({ type: 'http', scheme: 'bearer' });
    for (const [method, path, op] of operations()) {
      const secured = JSON.stringify(op.security ?? []) === JSON.stringify([{ bearerAuth: [] }]);
      expect(secured, `${method} ${path}`).to.equal(path.startsWith('/v1/'));
      if (path.startsWith('/v1/')) expect(op.responses, `${method} ${path}`).to.have.property('401');
    }
  });

  it('documents area A errors as plain text and area B errors as the JSON error object', () => {
    for (const [method, path, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        const types = Object.keys(response.content ?? {});
        expect(types, `${method} ${path} ${status}`).to.deep.equal(path.startsWith('/v1/') ? ['application/json'] : ['text/plain']);
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
