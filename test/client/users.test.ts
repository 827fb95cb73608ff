/**
 * The users API through the typed client, on the real server over a real socket (SQLite, and
 * PostgreSQL when TEST_POSTGRES_URL is set): the happy paths of test/http/users.test.ts, plus
 * how its plain-text errors arrive as InferenceErrors.
 */
import { expect } from 'chai';
import { InferenceError } from '../../src/client/index.js';
import { testDatabaseKinds } from '../helpers/test-databases.js';
import { rejection } from '../helpers/rejection.js';
import { serveTestApp, type ServedApp } from './serve-test-app.js';

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const database of testDatabaseKinds()) {
  describe(`client.users (${database})`, () => {
    let served: ServedApp;
    const rows = () => served.app.db.selectFrom('users').selectAll().orderBy('id').execute();

    beforeEach(async () => {
      served = await serveTestApp({ database });
    });
    afterEach(() => served.close());

    it('create answers the whole stored record', async () => {
      const user = await served.client().users.create({ name: 'Ann', email: 'ann@example.org' });
      expect(user).to.have.all.keys('id', 'name', 'email', 'created_at', 'updated_at');
      expect(user).to.include({ name: 'Ann', email: 'ann@example.org' });
      expect(user.id).to.be.a('number').greaterThan(0);
      expect(user.created_at).to.match(ISO_TIME);
      expect(user.updated_at).to.equal(user.created_at);
      expect(await rows()).to.deep.equal([user]);
    });

    it('list answers every record, oldest first; get answers one', async () => {
      const client = served.client();
      expect(await client.users.list()).to.deep.equal([]);
      const ann = await client.users.create({ name: 'Ann', email: 'ann@example.org' });
      const bob = await client.users.create({ name: 'Bob', email: 'bob@example.org' });
      expect(await client.users.list()).to.deep.equal([ann, bob]);
      expect(await client.users.get(bob.id)).to.deep.equal(bob);
    });

    it('update replaces both fields and keeps created_at', async () => {
      const client = served.client();
      const ann = await client.users.create({ name: 'Ann', email: 'ann@example.org' });
      const annie = await client.users.update(ann.id, { name: 'Annie', email: 'annie@example.org' });
      expect(annie).to.include({ id: ann.id, name: 'Annie', email: 'annie@example.org', created_at: ann.created_at });
      expect(await rows()).to.deep.equal([annie]);
    });

    it('delete resolves with nothing and removes the record', async () => {
      const client = served.client();
      const ann = await client.users.create({ name: 'Ann', email: 'ann@example.org' });
      expect(await client.users.delete(ann.id)).to.equal(undefined);
      expect(await rows()).to.deep.equal([]);
    });

    it('stores Unicode as sent (emoji names, IDN addresses)', async () => {
      const user = await served.client().users.create({ name: '😀'.repeat(200), email: 'zoë@exämple.org' });
      expect((await served.client().users.get(user.id)).name).to.equal('😀'.repeat(200));
    });

    it('sends only name and email, whatever else the object holds', async () => {
      const input = { name: 'Ann', email: 'ann@example.org', id: 99, admin: true };
      const user = await served.client().users.create(input);
      expect(user.id).to.not.equal(99);
      expect(user).to.not.have.property('admin');
    });

    describe('errors: plain-text answers become InferenceErrors with the status, a code and the request id', () => {
      it('404 not_found for an unknown id, on get, update and delete', async () => {
        const client = served.client();
        for (const call of [() => client.users.get(42), () => client.users.update(42, { name: 'A', email: 'a@b.org' }), () => client.users.delete(42)]) {
          const error = await rejection(call());
          expect(error).to.be.instanceOf(InferenceError);
          expect(error).to.include({ status: 404, code: 'not_found', message: 'user 42 not found' });
          expect((error as InferenceError).requestId)
            .to.be.a('string')
            .with.length.greaterThan(0);
        }
      });

      it('400 invalid_request naming the field, and nothing stored', async () => {
        const error = await rejection(served.client().users.create({ name: 'Ann', email: 'ann.example.org' }));
        expect(error).to.include({ status: 400, code: 'invalid_request' });
        expect(error.message).to.match(/"email" must be an email address/);
        expect(await rows()).to.deep.equal([]);
      });

      it('409 conflict for an email already used (any case)', async () => {
        const client = served.client();
        await client.users.create({ name: 'Ann', email: 'ann@example.org' });
        const error = await rejection(client.users.create({ name: 'Other', email: 'ANN@example.org' }));
        expect(error).to.include({ status: 409, code: 'conflict' });
        expect(error.message).to.match(/already exists/);
      });

      it('400 for an id that is not a positive integer (the client does not check it; the server does)', async () => {
        const error = await rejection(served.client().users.get(-1));
        expect(error).to.include({ status: 400, code: 'invalid_request' });
        expect(error.message).to.match(/positive integer/);
      });
    });
  });
}
