import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { bearer, createTestApp } from '../helpers/test-app.js';

const run = promisify(execFile);

describe('keys CLI (scripts/keys.ts)', function () {
  this.timeout(60_000);
  let dir: string;
  let databasePath: string;

  /** Runs the CLI in a child process, as `npm run keys -- ...` would, and never throws. */
  async function keys(args: string[], env: Record<string, string> = {}) {
    try {
      const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/keys.ts', ...args], {
        env: { PATH: process.env.PATH, DATABASE_URL: `sqlite:${databasePath}`, ...env },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
    databasePath = join(dir, 'data', 'app.db');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('creates, lists and revokes a key that the server then accepts and refuses', async () => {
    const created = await keys(['create', '--name', 'ci runner']);
    expect(created.code, created.stderr).to.equal(0);
    const key = created.stdout.trim();
    expect(created.stdout).to.equal(`${key}\n`);
    expect(key).to.match(/^lis_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).to.match(/shown only this once/);

    const app = await createTestApp({ databasePath, env: { API_KEYS: '' } });
    try {
      const [row] = await app.db.selectFrom('api_keys').selectAll().execute();
      expect(row!.key_hash).to.equal(createHash('sha256').update(key).digest('hex'));
      expect(row!.name).to.equal('ci runner');

      expect((await app.request.get('/v1/models').set('Authorization', bearer(key))).status).to.equal(200);

      const listed = await keys(['list']);
      expect(listed.code).to.equal(0);
      expect(listed.stdout).to.match(/^ID\s+NAME\s+PREFIX\s+CREATED\s+LAST USED\s+STATUS/);
      expect(listed.stdout).to.include('ci runner').and.include(key.slice(0, 12)).and.include('active');
      expect(listed.stdout).to.not.include(key.slice(12));
      expect(listed.stdout).to.not.match(/never/); // the request above was recorded as a use

      const revoked = await keys(['revoke', key.slice(0, 12)]);
      expect(revoked.code, revoked.stderr).to.equal(0);
      expect(revoked.stdout).to.match(/^Revoked API key 1 "ci runner"/);
      expect((await app.request.get('/v1/models').set('Authorization', bearer(key))).status).to.equal(401);

      const json = JSON.parse((await keys(['list', '--json'])).stdout);
      expect(json).to.have.length(1);
      expect(json[0]).to.include({ id: 1, name: 'ci runner' }).and.not.have.property('key_hash');
      expect(json[0].revoked_at).to.be.a('string');
    } finally {
      await app.close({ keepFiles: true });
    }
  });

  it('exits 1 with a message for an unknown id or prefix', async () => {
    const res = await keys(['revoke', 'lis_unknown']);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.match(/API key lis_unknown not found/);
  });

  it('exits 2 with usage for a bad command line', async () => {
    for (const args of [['frobnicate'], ['create', '--name', '  '], ['list', '--bogus']]) {
      const res = await keys(args);
      expect(res.code, args.join(' ')).to.equal(2);
      expect(res.stderr).to.match(/Usage:/);
    }
  });

  it('exits 1 naming the variable when DATABASE_URL is invalid', async () => {
    const res = await keys(['list'], { DATABASE_URL: 'mysql://nope' });
    expect(res.code).to.equal(1);
    expect(res.stderr).to.match(/^Configuration error: DATABASE_URL/);
  });
});
