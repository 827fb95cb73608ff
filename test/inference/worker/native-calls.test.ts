import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { InferenceFailedError } from '../../../src/errors.js';
import { ModelWorker } from '../../../src/inference/worker/model-worker.js';
import { REPO_ROOT } from '../../audio/audio-test-helpers.js';
import { SESSION_LOOP_WORKER } from './session-loop-api.js';

const ONNX_FILE = join(REPO_ROOT, 'test/fixtures/models/whisper-tiny-random/onnx/encoder_model.onnx');

describe('stopping a worker inside onnxruntime (native-calls.ts)', () => {
  it('never aborts the process: a thread creating sessions is terminated only between native calls', async function () {
    this.timeout(60_000);
    // Its own process: before the guard, this printed "terminate called after throwing an instance of 'Napi::Error'" and aborted.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'test/inference/worker/stop-during-native.ts'), ONNX_FILE],
      {
        cwd: REPO_ROOT,
        timeout: 50_000,
      },
    );
    expect(stdout.trim()).to.equal('alive');
  });

  it('answers an error onnxruntime throws in the thread as 503 inference_failed naming the model', async () => {
    const worker = await ModelWorker.start(SESSION_LOOP_WORKER, { init: { onnxFile: ONNX_FILE }, modelId: 'tiny-encoder', name: 'session-loop' });
    try {
      const error = await worker.call('failRun').catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(InferenceFailedError);
      expect((error as InferenceFailedError).status).to.equal(503);
      expect((error as Error).message).to.match(/^Model "tiny-encoder" failed while answering: /);
    } finally {
      await worker.dispose();
    }
  });

  it('is not loaded by the speech encoder, which runs no model (ServeOptions.onnxRuntime)', async function () {
    if (process.platform !== 'linux') this.skip(); // reads /proc/self/maps
    this.timeout(60_000);
    // Its own process: in this one, other tests have loaded onnxruntime already (a library is process-wide).
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'scripts/bench/codec-worker-memory.ts'), '--child'], {
      cwd: REPO_ROOT,
      timeout: 50_000,
    });
    const sample = JSON.parse(stdout.trim().split('\n').at(-1)!) as { onnxMapped: boolean };
    expect(sample.onnxMapped).to.equal(false);
  });
});
