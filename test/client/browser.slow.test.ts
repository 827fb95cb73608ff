/**
 * The built client in a real browser (Debian's chromium, headless; skipped when absent), from a
 * page on another origin than the server (CORS_ORIGINS allows it): the page imports
 * dist/src/client/index.js as an ES module, calls each kind of method, and posts what it saw
 * back to the page's own server. No browser-driver package: the page reports by itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { TEST_API_KEY } from '../helpers/test-app.js';
import { serveTestApp, type ServedApp } from './serve-test-app.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

const PAGE = `<!doctype html><meta charset="utf-8"><title>client check</title>
<script type="module">
import { InferenceClient, InferenceError } from '/client/index.js';
const seen = {};
try {
  const [baseUrl, apiKey] = JSON.parse(decodeURIComponent(location.hash.slice(1)));
  const client = new InferenceClient({ baseUrl, apiKey });
  const user = await client.users.create({ name: 'Ann', email: 'ann@example.org' });
  seen.user = user.name;
  seen.models = (await client.models.list({ installed: true })).map((model) => model.id);
  const wav = await (await fetch('/tone.wav')).blob();
  seen.transcript = typeof (await client.transcribe({ model: 'whisper-tiny-random', file: new File([wav], 'tone.wav', { type: 'audio/wav' }) })).text;
  seen.vtt = (await client.transcribe({ model: 'whisper-tiny-random', file: wav, responseFormat: 'vtt' })).slice(0, 6);
  seen.events = [];
  for await (const event of client.transcribeStream({ model: 'whisper-tiny-random', file: wav.stream() })) seen.events.push(event.type);
  const speech = await client.speak({ model: 'piper-random', input: 'Hello there. A second sentence.' });
  seen.speechType = speech.contentType;
  seen.speechBytes = 0;
  for await (const chunk of speech.chunks()) seen.speechBytes += chunk.byteLength;
  const blob = await (await client.speak({ model: 'piper-random', input: 'Hi.', format: 'wav' })).blob();
  seen.blob = [blob.type, blob.size > 44];
  try { await client.users.get(999); } catch (error) { seen.error = [error instanceof InferenceError, error.status, error.code, typeof error.requestId]; }
  try { await client.models.list({ signal: AbortSignal.abort() }); } catch (error) { seen.abort = error.name; }
} catch (error) {
  seen.failed = String(error && error.stack || error);
}
await fetch('/result', { method: 'POST', body: JSON.stringify(seen) });
</script>`;

describe('the client in Chromium, from another origin', function () {
  this.timeout(120_000);
  let served: ServedApp;
  let page: Server;
  let chromium: ChildProcess | undefined;
  let profile: string;
  /** The first report wins: the page's, chromium's early exit, or the time-out. */
  let report!: (json: string) => void;
  const result = new Promise<string>((resolve) => (report = resolve));

  before(async function () {
    if (!CHROMIUM) return this.skip(); // apt-get install chromium
    await promisify(execFile)(join(REPO_ROOT, 'node_modules/.bin/tsc'), ['-p', join(REPO_ROOT, 'tsconfig.client.json')], { cwd: REPO_ROOT });
    page = createServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/result') {
        let body = '';
        req.on('data', (chunk) => (body += chunk));
        req.on('end', () => (res.end(), report(body)));
      } else if (path === '/') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(PAGE);
      } else if (/^\/client\/[a-z-]+\.js$/.test(path)) {
        res.setHeader('Content-Type', 'text/javascript');
        res.end(readFileSync(join(REPO_ROOT, 'dist/src/client', path.slice('/client/'.length))));
      } else if (path === '/tone.wav') {
        res.end(readFileSync(join(REPO_ROOT, 'test/fixtures/audio/tone-22k05-stereo-24bit.wav')));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    served = await serveTestApp({
      env: { CORS_ORIGINS: pageOrigin },
      manifest: {
        models: [
          {
            id: 'whisper-tiny-random',
            task: 'speech-to-text',
            engine: 'transformers-asr',
            description: 'fixture',
            license: 'MIT',
            options: { maxNewTokens: 6 },
          },
          { id: 'piper-random', task: 'text-to-speech', engine: 'piper', description: 'fixture', license: 'test', options: { threads: 1 } },
        ],
      },
      modelsDir: join(REPO_ROOT, 'test/fixtures/models'),
    });
    profile = mkdtempSync(join(tmpdir(), 'lis-chromium-'));
    const url = `${pageOrigin}/#${encodeURIComponent(JSON.stringify([served.baseUrl, TEST_API_KEY]))}`;
    chromium = spawn(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`, '--remote-debugging-port=0', url], {
      stdio: 'ignore',
    });
    chromium.once('exit', (code) => report(JSON.stringify({ failed: `chromium exited (${code}) before the page reported` })));
    // A page that never reports (a module that failed to load) fails here rather than at mocha's time-out.
    setTimeout(() => report(JSON.stringify({ failed: 'the page did not report within 60 s' })), 60_000).unref();
  });
  after(async () => {
    chromium?.removeAllListeners('exit');
    chromium?.kill();
    if (chromium && chromium.exitCode === null) await new Promise((resolve) => chromium!.once('exit', resolve));
    await new Promise((resolve) => (page ? page.close(resolve) : resolve(undefined)));
    await served?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('runs users, models, transcribe (File, Blob, stream events), speak (chunks, blob), errors and abort', async () => {
    const seen = JSON.parse(await result);
    expect(seen.failed).to.equal(undefined);
    expect(seen).to.deep.equal({
      user: 'Ann',
      models: ['whisper-tiny-random', 'piper-random'],
      transcript: 'string',
      vtt: 'WEBVTT',
      events: [...seen.events.slice(0, -1).map(() => 'transcript.text.delta'), 'transcript.text.done'],
      speechType: 'audio/mpeg',
      speechBytes: seen.speechBytes,
      blob: ['audio/wav', true],
      error: [true, 404, 'not_found', 'string'],
      abort: 'AbortError',
    });
    expect(seen.speechBytes).to.be.greaterThan(1000);
  });
});
