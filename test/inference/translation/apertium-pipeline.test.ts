/**
 * ApertiumPipeline supervision with stand-in stages (cat, sed, bash): each behaves like an
 * Apertium stage in null-flush mode (one answer per `\0`-ended chunk) except where a test makes
 * it crash, swallow or crawl on purpose. The real eng-spa processes are tested in
 * apertium-engine.test.ts and apertium-hostile-input.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ApertiumPipeline, ApertiumPipelineError } from '../../../src/inference/translation/apertium-pipeline.js';

/**
 * A stage that echoes each record after `seconds`, logs every record it reads to `log`, exits
 * (a crash) on a record equal to POISON and never answers again (stuck) after one equal to HANG.
 */
function echoStage(seconds: number, log = '/dev/null'): string[] {
  return [
    'bash',
    '-c',
    `while IFS= read -r -d '' x; do printf '%s\\n' "$x" >> '${log}'; [[ $x == POISON ]] && exit 3; [[ $x == HANG ]] && exec sleep 60; ` +
      `sleep ${seconds}; printf '%s\\0' "$x"; done`,
  ];
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('should reject'),
    (error: unknown) => error,
  );
}

describe('ApertiumPipeline (stand-in stages)', () => {
  const pipelines: ApertiumPipeline[] = [];
  let dir: string;
  function pipeline(commands: string[][], options: { timeoutMs?: number; maxInFlight?: number } = {}): ApertiumPipeline {
    const created = new ApertiumPipeline({ commands, name: 'test', timeoutPerCharMs: 0, ...options });
    pipelines.push(created);
    return created;
  }
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'apertium-pipeline-'));
  });
  afterEach(async () => {
    await Promise.all(pipelines.splice(0).map((created) => created.dispose()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('matches concurrent requests to their own answers', async () => {
    const echo = pipeline([['cat']]);
    const requests = Array.from({ length: 30 }, (_, index) => [`a${index}`, `b${index}`]);
    const answers = await Promise.all(requests.map((chunks) => echo.translate(chunks)));
    expect(answers).to.deep.equal(requests);
    expect(echo.starts).to.equal(1);
  });

  it('fails only the request that crashes a stage; the requests in the pipe with it succeed', async () => {
    const crashing = pipeline([['sed', '-u', '-z', '/POISON/Q 3']]);
    const texts = Array.from({ length: 12 }, (_, index) => (index === 5 ? 'POISON' : `text ${index}`));
    const results = await Promise.allSettled(texts.map((text) => crashing.translate([text])));
    results.forEach((result, index) => {
      if (index === 5) {
        expect(result.status).to.equal('rejected');
        expect((result as PromiseRejectedResult).reason).to.be.instanceOf(ApertiumPipelineError);
      } else {
        expect(result, texts[index]).to.deep.equal({ status: 'fulfilled', value: [texts[index]] });
      }
    });
  });

  it('fails only the request that makes a stage swallow flushes (answers out of step)', async () => {
    // Like lrx-proc on a lone "^": the chunk and the flush after it (the request's nonce) vanish.
    const swallowing = pipeline([['sed', '-u', '-z', '/SWALLOW/{N;d}']], { timeoutMs: 500 });
    const texts = Array.from({ length: 12 }, (_, index) => (index === 3 ? 'SWALLOW' : `text ${index}`));
    const results = await Promise.allSettled(texts.map((text) => swallowing.translate([text])));
    results.forEach((result, index) => {
      if (index === 3) expect(result.status).to.equal('rejected');
      else expect(result, texts[index]).to.deep.equal({ status: 'fulfilled', value: [texts[index]] });
    });
  });

  it('times each request from when it is the oldest in the pipe, so slow ones ahead do not time it out', async () => {
    // Each request (one chunk plus its nonce) takes 0.2 s; twelve queued in the pipe take 2.4 s, over
    // the time-out, which leaves each request 1.5 s for a busy machine (npm test runs two files at once).
    const slow = pipeline([echoStage(0.1)], { timeoutMs: 1500 });
    const texts = Array.from({ length: 12 }, (_, index) => `text ${index}`);
    expect(await Promise.all(texts.map((text) => slow.translate([text])))).to.deep.equal(texts.map((text) => [text]));
    expect(slow.starts).to.equal(1);
  });

  it('fails a request that gets no answer in its time, and answers the requests behind it', async () => {
    const hanging = pipeline([echoStage(0)], { timeoutMs: 1000 });
    const stuck = hanging.translate(['HANG']);
    const behind = ['one', 'two', 'three'].map((text) => hanging.translate([text]));
    expect(((await rejection(stuck)) as Error).message).to.match(/test: no answer within 1000 ms; pipeline restarted/);
    expect(await Promise.all(behind)).to.deep.equal([['one'], ['two'], ['three']]);
    expect(hanging.starts).to.equal(2);
  });

  describe('cancellation', () => {
    it('rejects with the reason of an already aborted signal without starting anything', async () => {
      const echo = pipeline([['cat']]);
      const reason = new Error('client went away');
      expect(await rejection(echo.translate(['x'], { signal: AbortSignal.abort(reason) }))).to.equal(reason);
      expect(echo.starts).to.equal(0);
    });

    it('drops a queued request at once, before it is written to the pipe', async () => {
      const log = join(dir, 'read.log');
      const slow = pipeline([echoStage(0.15, log)], { maxInFlight: 1 });
      const first = slow.translate(['first']);
      const controller = new AbortController();
      const queued = slow.translate(['queued'], { signal: controller.signal });
      const reason = new Error('gone');
      const abortedAt = Date.now();
      controller.abort(reason);
      expect(await rejection(queued)).to.equal(reason);
      expect(Date.now() - abortedAt).to.be.below(100);
      expect(await first).to.deep.equal(['first']);
      expect(await slow.translate(['last'])).to.deep.equal(['last']);
      expect(readFileSync(log, 'utf8')).not.to.include('queued');
    });

    it('lets a request already in the pipe finish, drops its answer, and keeps the pipe in step', async () => {
      const slow = pipeline([echoStage(0.1)]);
      const controller = new AbortController();
      const inPipe = slow.translate(['aborted'], { signal: controller.signal });
      const next = slow.translate(['next']);
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort(new Error('gone'));
      expect(((await rejection(inPipe)) as Error).message).to.equal('gone');
      expect(await next).to.deep.equal(['next']);
      expect(await slow.translate(['after'])).to.deep.equal(['after']);
      expect(slow.starts).to.equal(1);
    });

    it('does not retry an aborted request after a crash', async () => {
      const log = join(dir, 'read.log');
      const crashing = pipeline([echoStage(0, log)]);
      const controller = new AbortController();
      const aborted = crashing.translate(['aborted'], { signal: controller.signal });
      controller.abort(new Error('gone'));
      const poison = crashing.translate(['POISON']);
      await rejection(aborted);
      await rejection(poison);
      expect(await crashing.translate(['after'])).to.deep.equal(['after']);
      // Written once, when it was sent; not again with the retries after the crash.
      expect(readFileSync(log, 'utf8').split('aborted').length - 1).to.equal(1);
    });
  });
});
