/**
 * A client that hangs up cancels its model work: the CPU goes idle and the admission slots free
 * at once, instead of after the abandoned work would have finished.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DEFAULT_LIMITS } from '../../src/config/load-config.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { coresBusyOver } from '../inference/cpu-load.js';
import { bearer, createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';

const MANIFEST: Manifest = {
  models: [{ id: 'piper-random', task: 'text-to-speech', engine: 'piper', description: 'fixture', license: 'test', options: { threads: 1 } }],
};
const LONG_TEXT = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} is here to keep the voice busy for a while.`).join(' ');

describe('cancellation when the client goes away', function () {
  this.timeout(120_000);
  let app: TestApp;
  let server: Server;
  let port: number;
  const slots = 4;

  before(async () => {
    app = await createTestApp({
      manifest: MANIFEST,
      modelsDir: join(REPO_ROOT, 'test/fixtures/models'),
      limits: { maxPendingRequests: { ...DEFAULT_LIMITS.maxPendingRequests, 'text-to-speech': slots } },
    });
    server = createServer(app.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    // Load the voice first, so the measurement below sees synthesis, not loading.
    const warm = await app.request.post('/v1/text-to-speech').set('Authorization', bearer()).send({ model: 'piper-random', input: 'Hi.' });
    expect(warm.status).to.equal(200);
  });
  after(async () => {
    server.close();
    await app.close();
  });

  /** WAV: the whole text is synthesised before the first byte, so only cancellation can stop it. */
  function abandonedSpeech(afterMs: number): Promise<void> {
    const body = JSON.stringify({ model: 'piper-random', input: LONG_TEXT, response_format: 'wav' });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /v1/text-to-speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    return new Promise((resolve) => setTimeout(() => resolve(void socket.destroy()), afterMs));
  }

  it('stops synthesis of abandoned requests and frees their slots', async () => {
    // Held for 2 s: long enough to measure the voice busy (0.5–1.5 s), far shorter than LONG_TEXT's synthesis.
    const busy = abandonedSpeech(2_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const whileBusy = await coresBusyOver(1_000);
    await busy;

    await Promise.all(Array.from({ length: slots }, () => abandonedSpeech(300)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const afterHangUp = await coresBusyOver(1_500);
    expect(afterHangUp, `CPU share after hang-up ${afterHangUp.toFixed(2)} vs busy ${whileBusy.toFixed(2)}`).to.be.below(Math.max(0.15, whileBusy / 3));

    // Every slot is free again and the voice answers a short text at once.
    const res = await app.request.post('/v1/text-to-speech').set('Authorization', bearer()).send({ model: 'piper-random', input: 'Hello.' });
    expect(res.status).to.equal(200);
  });
});
