/**
 * The client as a consumer gets it: `npm run build`'s client step (tsconfig.client.json: DOM
 * lib, no Node types, declarations), then a project outside the repo that imports
 * `local-inference-server/client` through package.json `exports`, type-checks against the
 * emitted .d.ts, and runs against the real server.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { TEST_API_KEY } from '../helpers/test-app.js';
import { packClient } from '../../scripts/pack-client.js';
import { serveTestApp, type ServedApp } from './serve-test-app.js';

const run = promisify(execFile);
const TSC = join(REPO_ROOT, 'node_modules/.bin/tsc');

const CONSUMER_TS = `
import { InferenceClient, InferenceError, type User, type TranscriptionEvent } from 'local-inference-server/client';

export async function main(baseUrl: string, apiKey: string): Promise<string> {
  const client = new InferenceClient({ baseUrl, apiKey, retry: { maxRetries: 2 } });
  const user: User = await client.users.create({ name: 'Ann', email: 'ann@example.org' });
  // @ts-expect-error: the types are real, not any (name is a string)
  const wrong: number = user.name;
  void wrong;
  const onEvent = (event: TranscriptionEvent) => (event.type === 'transcript.text.delta' ? event.delta : event.text);
  void onEvent;
  try {
    await client.users.get(user.id + 1);
    return 'no error';
  } catch (error) {
    if (!(error instanceof InferenceError)) throw error;
    return JSON.stringify({ user: user.name, status: error.status, code: error.code });
  }
}
`;

describe('the package export ./client', function () {
  this.timeout(120_000);
  let dir: string;
  let served: ServedApp;

  before(async () => {
    await run(TSC, ['-p', join(REPO_ROOT, 'tsconfig.client.json')], { cwd: REPO_ROOT });
    dir = mkdtempSync(join(tmpdir(), 'lis-consumer-'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(REPO_ROOT, join(dir, 'node_modules', 'local-inference-server'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    served = await serveTestApp();
  });
  after(async () => {
    await served?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the build emits JavaScript and declarations where package.json exports point', () => {
    for (const file of ['index.js', 'index.d.ts', 'types.d.ts', 'errors.js', 'http.js', 'sse.js', 'multipart.js', 'retry.js']) {
      expect(existsSync(join(REPO_ROOT, 'dist/src/client', file)), file).to.equal(true);
    }
  });

  it('a TypeScript project (NodeNext, DOM lib, no Node types) type-checks against the .d.ts', async () => {
    writeFileSync(join(dir, 'consumer.ts'), CONSUMER_TS);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, lib: ['ES2022', 'DOM'], types: [], noEmit: true },
        files: ['consumer.ts'],
      }),
    );
    const result = await run(TSC, ['-p', dir], { cwd: dir }).catch((error: { stdout: string }) => error);
    expect(result.stdout, 'tsc output').to.equal('');
  });

  it("the documented TypeScript example (docs/clients.md) type-checks against the built client (with Node's types, as a Node user has them)", async () => {
    const readme = readFileSync(join(REPO_ROOT, 'docs/clients.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## JavaScript client'));
    const example = /```ts[^\n]*\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example, 'a ts block in the JavaScript client section').to.be.a('string');
    writeFileSync(join(dir, 'readme-example.ts'), `${example}\nexport {};\n`);
    writeFileSync(
      join(dir, 'tsconfig.readme.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          lib: ['ES2022', 'DOM'],
          types: ['node'],
          typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
          noEmit: true,
        },
        files: ['readme-example.ts'],
      }),
    );
    const result = await run(TSC, ['-p', join(dir, 'tsconfig.readme.json')], { cwd: dir }).catch((error: { stdout: string }) => error);
    expect(result.stdout, 'tsc output').to.equal('');
  });

  it('plain Node imports it by the package name and talks to the real server', async () => {
    writeFileSync(
      join(dir, 'consumer.mjs'),
      `import { InferenceClient, InferenceError } from 'local-inference-server/client';
const client = new InferenceClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });
const user = await client.users.create({ name: 'Ann', email: 'ann@example.org' });
const error = await client.users.get(user.id + 1).catch((e) => e);
console.log(JSON.stringify({ user: user.name, isInferenceError: error instanceof InferenceError, status: error.status, code: error.code }));`,
    );
    const { stdout } = await run(process.execPath, [join(dir, 'consumer.mjs'), served.baseUrl, TEST_API_KEY], { cwd: dir });
    expect(JSON.parse(stdout)).to.deep.equal({ user: 'Ann', isInferenceError: true, status: 404, code: 'not_found' });
  });
});

describe('npm run pack:client', function () {
  this.timeout(120_000);
  let dir: string;
  let served: ServedApp;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lis-installer-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'installer', private: true, type: 'module' }));
    served = await serveTestApp();
  });
  after(async () => {
    await served?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gives a tarball that `npm install` puts in another project, with no dependency, working as documented', async () => {
    const tarball = await packClient();
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: dir });
    const installed = JSON.parse(readFileSync(join(dir, 'node_modules/local-inference-server/package.json'), 'utf8')) as Record<string, unknown>;
    expect(installed.dependencies ?? {}).to.deep.equal({});
    writeFileSync(
      join(dir, 'consumer.mjs'),
      `import { InferenceClient } from 'local-inference-server/client';
const client = new InferenceClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });
console.log(JSON.stringify((await client.users.create({ name: 'Bo', email: 'bo@example.org' })).name));`,
    );
    const { stdout } = await run(process.execPath, [join(dir, 'consumer.mjs'), served.baseUrl, TEST_API_KEY], { cwd: dir });
    expect(JSON.parse(stdout)).to.equal('Bo');
  });
});
