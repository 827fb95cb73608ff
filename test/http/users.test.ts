import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { testDatabaseKinds } from '../helpers/test-databases.js';

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const database of testDatabaseKinds()) {
  describe(`/users (${database})`, () => {
    let app: TestApp;
    const rows = () => app.db.selectFrom('users').selectAll().orderBy('id').execute();
    const create = (body: object) => app.request.post('/users').send(body);

    /** Runs a request that must be rejected and checks the table did not change. */
    async function rejected(send: () => PromiseLike<{ status: number; text: string; headers: Record<string, string> }>, status: number) {
      const before = await rows();
      const res = await send();
      expect(res.status, res.text).to.equal(status);
      expect(res.headers['content-type']).to.match(/^text\/plain/);
      expect(res.text.length).to.be.within(1, 200);
      expect(await rows()).to.deep.equal(before);
      return res;
    }

    beforeEach(async () => {
      app = await createTestApp({ database });
    });
    afterEach(() => app.close());

    describe('POST /users', () => {
      it('creates a record and answers 201 with the whole record and a Location header', async () => {
        const res = await create({ name: 'Ann', email: 'ann@example.org' });
        expect(res.status).to.equal(201);
        expect(res.headers['content-type']).to.match(/^application\/json/);
        expect(res.body).to.have.all.keys('id', 'name', 'email', 'created_at', 'updated_at');
        expect(res.body).to.include({ name: 'Ann', email: 'ann@example.org' });
        expect(res.body.id).to.be.a('number').and.to.be.greaterThan(0);
        expect(res.body.created_at).to.match(ISO_TIME);
        expect(res.body.updated_at).to.equal(res.body.created_at);
        expect(res.headers.location).to.equal(`/users/${res.body.id}`);
        expect(await rows()).to.deep.equal([res.body]);
      });

      it('ignores a client-supplied id and unknown fields', async () => {
        const res = await create({ id: 99, name: 'Ann', email: 'ann@example.org', admin: true });
        expect(res.status).to.equal(201);
        expect(res.body.id).to.not.equal(99);
        expect(res.body).to.not.have.property('admin');
      });

      it('answers 409 for an email that differs from a stored one only in case', async () => {
        await create({ name: 'Ann', email: 'ann@example.org' });
        const res = await rejected(() => create({ name: 'Other', email: 'ANN@Example.ORG' }), 409);
        expect(res.text).to.match(/already exists/);
      });

      const invalidBodies: Array<[string, unknown]> = [
        ['name is missing', { email: 'ann@example.org' }],
        ['email is missing', { name: 'Ann' }],
        ['name is empty', { name: '', email: 'ann@example.org' }],
        ['name is whitespace', { name: '   ', email: 'ann@example.org' }],
        ['name is not a string', { name: 42, email: 'ann@example.org' }],
        ['name is null', { name: null, email: 'ann@example.org' }],
        ['name is longer than 200 characters', { name: 'a'.repeat(201), email: 'ann@example.org' }],
        ['email is empty', { name: 'Ann', email: '' }],
        ['email has no @', { name: 'Ann', email: 'ann.example.org' }],
        ['email has no dotted domain', { name: 'Ann', email: 'ann@localhost' }],
        ['email contains spaces', { name: 'Ann', email: 'ann smith@example.org' }],
        ['email is longer than 254 characters', { name: 'Ann', email: `a@${'b'.repeat(250)}.org` }],
        ['email is not a string', { name: 'Ann', email: ['ann@example.org'] }],
        ['the body is an array', [{ name: 'Ann', email: 'ann@example.org' }]],
        ['the body is a JSON string', 'Ann'],
      ];
      for (const [what, body] of invalidBodies) {
        it(`answers 400 when ${what}`, async () => {
          await rejected(() => app.request.post('/users').set('Content-Type', 'application/json').send(JSON.stringify(body)), 400);
        });
      }

      /** [what, body, what the message must say] */
      const refusedCharacters: Array<[string, { name: string; email: string }, RegExp]> = [
        ['email ends with a NUL', { name: 'Ann', email: 'ann@example.org\u0000' }, /"email" must not contain control characters \(found U\+0000\)/],
        ['email holds a C1 control', { name: 'Ann', email: 'ann\u0085@example.org' }, /"email".*U\+0085/],
        ['email holds DEL', { name: 'Ann', email: 'ann@example.org\u007f' }, /"email".*U\+007F/],
        ['email is in angle brackets', { name: 'Ann', email: '<ann@example.org>' }, /"email" must be an email address/],
        ['email has a display name', { name: 'Ann', email: 'Ann <ann@example.org>' }, /"email" must be an email address/],
        ['email has a quoted local part', { name: 'Ann', email: '"ann"@example.org' }, /"email" must be an email address/],
        ['email holds a comment', { name: 'Ann', email: 'ann(work)@example.org' }, /"email" must be an email address/],
        ['email lists two addresses', { name: 'Ann', email: 'ann@example.org,bob@example.org' }, /"email" must be an email address/],
        ['email holds a non-breaking space', { name: 'Ann', email: 'ann\u00a0smith@example.org' }, /"email" must be an email address/],
        ['email has a domain literal', { name: 'Ann', email: 'ann@[127.0.0.1]' }, /"email" must be an email address/],
        ['name holds a NUL', { name: 'Ann\u0000', email: 'ann@example.org' }, /"name" must not contain control characters \(found U\+0000\)/],
        ['name holds a line break', { name: 'Ann\nSmith', email: 'ann@example.org' }, /"name".*U\+000A/],
        ['name holds an escape sequence', { name: 'Ann\u001b[31m', email: 'ann@example.org' }, /"name".*U\+001B/],
        ['name is a lone high surrogate', { name: '\ud800', email: 'ann@example.org' }, /"name" is not valid Unicode.*U\+D800/],
        ['name holds a lone low surrogate', { name: 'A\udc00nn', email: 'ann@example.org' }, /"name" is not valid Unicode.*U\+DC00/],
        ['email holds a lone surrogate', { name: 'Ann', email: 'ann\udbff@example.org' }, /"email" is not valid Unicode/],
        ['name is 201 emoji', { name: '😀'.repeat(201), email: 'ann@example.org' }, /"name" is 201 characters; the limit is 200/],
      ];
      for (const [what, body, message] of refusedCharacters) {
        it(`answers 400 naming the field when ${what}`, async () => {
          // JSON.stringify writes a lone surrogate as the escape "\ud800", as a client's JSON would.
          const res = await rejected(() => app.request.post('/users').set('Content-Type', 'application/json').send(JSON.stringify(body)), 400);
          expect(res.text).to.match(message);
        });
      }

      it('accepts a name of exactly 200 characters', async () => {
        const res = await create({ name: 'a'.repeat(200), email: 'ann@example.org' });
        expect(res.status).to.equal(201);
      });

      it('counts characters, not UTF-16 units: 200 emoji are a valid name, a 254-character IDN address a valid email', async () => {
        const email = `${'ä'.repeat(64)}@${'ü'.repeat(180)}.org`; // 64 + 1 + 180 + 4 = 249 characters
        const res = await create({ name: '😀'.repeat(200), email });
        expect(res.status, res.text).to.equal(201);
        expect((await app.request.get(`/users/${res.body.id}`)).body).to.include({ name: '😀'.repeat(200), email });
      });

      it('stores internationalised addresses and names exactly as sent', async () => {
        const users = [
          { name: 'Zoë Ångström', email: 'zoë@exämple.org' },
          { name: '山田 太郎', email: '用户@例子.广告' },
          { name: "Seán O'Brien-Ó Sé", email: "o'brien+news@example.ie" },
          { name: 'Ann', email: "!#$%&'*+-/=?^_`{|}~.@example.org" },
          { name: 'Ann\u00a0Lee 👩‍💻', email: 'ann.lee@sub-domain.example.co.uk' },
        ];
        for (const user of users) {
          const res = await create(user);
          expect(res.status, `${user.email}: ${res.text}`).to.equal(201);
          expect((await app.request.get(`/users/${res.body.id}`)).body).to.include(user);
        }
      });

      // Found by the fuzz suite: phrasing the error called String() on the client's object, which
      // throws for {"toString": ""}, and the client got a 500.
      it('answers 400 for an object whose toString is not a function', async () => {
        for (const name of [{ toString: '' }, { toString: null, valueOf: 1 }, { [Symbol.toPrimitive]: 1 }]) {
          const res = await rejected(() => create({ name, email: 'a@b.co' }), 400);
          expect(res.text).to.equal('"name" must be a string');
        }
      });

      it('answers 400 for malformed JSON', async () => {
        const res = await rejected(() => app.request.post('/users').set('Content-Type', 'application/json').send('{"name": "Ann",'), 400);
        expect(res.text).to.match(/JSON/);
      });

      it('answers 400 for a body that does not match its Content-Encoding, and accepts a gzipped one', async () => {
        const json = JSON.stringify({ name: 'Ann', email: 'ann@example.org' });
        const corrupt = [
          ['gzip', Buffer.from(json)],
          ['deflate', Buffer.from(json)],
          ['br', Buffer.from(json)],
          ['gzip', gzipSync(json).subarray(0, 20)],
        ] as const;
        // superagent would JSON-encode a Buffer sent as application/json; send the bytes as they are.
        const send = (encoding: string, bytes: Buffer) =>
          app.request
            .post('/users')
            .set('Content-Type', 'application/json')
            .set('Content-Encoding', encoding)
            .serialize((body) => body)
            .send(bytes);
        for (const [encoding, bytes] of corrupt) {
          const res = await rejected(() => send(encoding, bytes), 400);
          expect(res.text, encoding).to.match(/Content-Encoding/);
        }
        const ok = await send('gzip', gzipSync(json));
        expect(ok.status, ok.text).to.equal(201);
      });

      it('answers 415 for a non-JSON content type', async () => {
        await rejected(() => app.request.post('/users').set('Content-Type', 'text/plain').send('name=Ann'), 415);
        await rejected(() => app.request.post('/users').type('form').send({ name: 'Ann', email: 'ann@example.org' }), 415);
      });

      it('answers 415 when the body has no content type', async () => {
        await rejected(() => app.request.post('/users'), 415);
      });

      it('answers 413 for a JSON body over 1 MB', async () => {
        const body = JSON.stringify({ name: 'Ann', email: 'ann@example.org', padding: 'x'.repeat(1024 * 1024) });
        await rejected(() => app.request.post('/users').set('Content-Type', 'application/json').send(body), 413);
      });
    });

    describe('GET /users', () => {
      it('answers 200 with an empty array when there are no records', async () => {
        const res = await app.request.get('/users');
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal([]);
      });

      it('lists every record, oldest first', async () => {
        const a = (await create({ name: 'Ann', email: 'ann@example.org' })).body;
        const b = (await create({ name: 'Bob', email: 'bob@example.org' })).body;
        const res = await app.request.get('/users');
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal([a, b]);
      });
    });

    describe('GET /users/{id}', () => {
      it('answers 200 with the record the Location header named', async () => {
        const created = await create({ name: 'Ann', email: 'ann@example.org' });
        const res = await app.request.get(created.headers.location!);
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal(created.body);
      });

      it('answers 404 for an unknown id and 400 for a malformed one', async () => {
        await rejected(() => app.request.get('/users/12345'), 404);
        for (const bad of ['0', '-1', '1.5', 'abc', '1e3', '01', '99999999999999999999']) {
          await rejected(() => app.request.get(`/users/${bad}`), 400);
        }
      });

      it('echoes a malformed id short and escaped', async () => {
        const escapes = await rejected(() => app.request.get('/users/%1B%5B2J%0D%0Ax'), 400);
        expect(escapes.text).to.equal('user id must be a positive integer, got "\\u001b[2J\\r\\nx"');
        const long = await rejected(() => app.request.get(`/users/${'a'.repeat(8000)}`), 400);
        expect(long.text).to.equal(`user id must be a positive integer, got "${'a'.repeat(40)}…"`);
      });
    });

    describe('PUT /users/{id}', () => {
      let ann: Record<string, unknown>;
      beforeEach(async () => {
        ann = (await create({ name: 'Ann', email: 'ann@example.org' })).body;
      });

      it('replaces name and email and answers 200 with the updated record', async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const res = await app.request.put(`/users/${ann.id}`).send({ name: 'Annie', email: 'annie@example.org' });
        expect(res.status).to.equal(200);
        expect(res.body).to.include({ id: ann.id, name: 'Annie', email: 'annie@example.org', created_at: ann.created_at });
        expect(res.body.updated_at).to.match(ISO_TIME);
        expect(res.body.updated_at > (ann.created_at as string)).to.equal(true);
        expect(await rows()).to.deep.equal([res.body]);
      });

      it('lets a record keep its own email with different case', async () => {
        const res = await app.request.put(`/users/${ann.id}`).send({ name: 'Ann', email: 'ANN@example.org' });
        expect(res.status).to.equal(200);
        expect(res.body.email).to.equal('ANN@example.org');
      });

      it('answers 409 when the email belongs to another record', async () => {
        const bob = (await create({ name: 'Bob', email: 'bob@example.org' })).body;
        await rejected(() => app.request.put(`/users/${bob.id}`).send({ name: 'Bob', email: 'Ann@example.org' }), 409);
      });

      it('answers 400 when either field is missing (PUT replaces both)', async () => {
        await rejected(() => app.request.put(`/users/${ann.id}`).send({ name: 'Annie' }), 400);
        await rejected(() => app.request.put(`/users/${ann.id}`).send({ email: 'annie@example.org' }), 400);
      });

      it('answers 404 for an unknown id and 400 for a malformed one', async () => {
        const body = { name: 'X', email: 'x@example.org' };
        await rejected(() => app.request.put('/users/999').send(body), 404);
        await rejected(() => app.request.put('/users/abc').send(body), 400);
        await rejected(() => app.request.put('/users/0').send(body), 400);
      });

      it('answers 400 for malformed JSON, 415 for another content type, 413 past 1 MB', async () => {
        const put = () => app.request.put(`/users/${ann.id}`);
        await rejected(() => put().set('Content-Type', 'application/json').send('not json'), 400);
        await rejected(() => put().set('Content-Type', 'text/plain').send('x'), 415);
        const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 1), email: 'a@b.co' });
        await rejected(() => put().set('Content-Type', 'application/json').send(big), 413);
      });
    });

    describe('DELETE /users/{id}', () => {
      it('deletes the record and answers 204 with an empty body', async () => {
        const ann = (await create({ name: 'Ann', email: 'ann@example.org' })).body;
        const bob = (await create({ name: 'Bob', email: 'bob@example.org' })).body;
        const res = await app.request.delete(`/users/${ann.id}`);
        expect(res.status).to.equal(204);
        expect(res.text).to.equal('');
        expect(res.headers['content-type']).to.equal(undefined);
        expect(await rows()).to.deep.equal([bob]);
        await rejected(() => app.request.delete(`/users/${ann.id}`), 404);
      });

      it('frees the email for a new record', async () => {
        const ann = (await create({ name: 'Ann', email: 'ann@example.org' })).body;
        await app.request.delete(`/users/${ann.id}`);
        expect((await create({ name: 'Ann', email: 'ann@example.org' })).status).to.equal(201);
      });

      it('answers 404 for an unknown id and 400 for a malformed one', async () => {
        await create({ name: 'Ann', email: 'ann@example.org' });
        await rejected(() => app.request.delete('/users/999'), 404);
        await rejected(() => app.request.delete('/users/x'), 400);
      });
    });

    it('answers 405 with an Allow header for an unsupported method', async () => {
      const res = await rejected(() => app.request.patch('/users/1').send({ name: 'x' }), 405);
      expect(res.headers.allow).to.match(/PUT/);
    });
  });
}
