import { expect } from 'chai';
import SQLite from 'better-sqlite3';
import { withStatementCache } from '../../src/users/statement-cache.js';

describe('withStatementCache', () => {
  let sqlite: SQLite.Database;
  beforeEach(() => {
    sqlite = new SQLite(':memory:');
    sqlite.exec('create table t (id integer primary key, name text)');
  });
  afterEach(() => sqlite.close());

  it('prepares each SQL text once and hands back the same statement', () => {
    const cached = withStatementCache(sqlite);
    const first = cached.prepare('select * from t where id = ?');
    expect(cached.prepare('select * from t where id = ?')).to.equal(first);
    expect(cached.prepare('select name from t')).to.not.equal(first);
  });

  it('keeps the database live behind it: transactions, other methods and schema changes', () => {
    const cached = withStatementCache(sqlite);
    cached.prepare('begin').run([]);
    expect(cached.inTransaction).to.equal(true);
    cached.prepare('insert into t (name) values (?)').run(['ann']);
    cached.prepare('commit').run([]);
    expect(cached.inTransaction).to.equal(false);
    const all = cached.prepare('select * from t');
    expect(all.all([])).to.deep.equal([{ id: 1, name: 'ann' }]);
    // A statement prepared before a schema change still answers for the new schema.
    sqlite.exec('alter table t add column email text');
    expect(cached.prepare('select * from t').all([])).to.deep.equal([{ id: 1, name: 'ann', email: null }]);
  });

  it('evicts the oldest statement past its bound', () => {
    const cached = withStatementCache(sqlite, 2);
    const a = cached.prepare('select 1');
    cached.prepare('select 2');
    cached.prepare('select 3');
    expect(cached.prepare('select 1')).to.not.equal(a);
  });
});
