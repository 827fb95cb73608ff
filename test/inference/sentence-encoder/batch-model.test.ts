import { expect } from 'chai';
import { InferenceFailedError } from '../../../src/errors.js';
import { BatchModel } from '../../../src/inference/sentence-encoder/batch-model.js';
import { BATCH_MODEL_WORKER, type BatchModelApi, type BatchModelInit } from '../../../src/inference/sentence-encoder/batch-model-protocol.js';
import { workerModule } from '../../../src/inference/worker/worker-api.js';

const crashingWorker = workerModule<BatchModelApi, BatchModelInit>(import.meta.url, './crashing-batch-worker', {
  packages: BATCH_MODEL_WORKER.packages,
});
const INIT: BatchModelInit = { modelsDir: '', dir: '', head: 'feature-extraction', dtype: 'fp32', threads: 1, maxBatchSize: 8, pooling: 'mean' };

const lengths = (rows: Float32Array[]) => rows.map((row) => row[0]);
/** The stand-in worker's second value: the intra-op threads of the session that answered. */
const threads = (rows: Float32Array[]) => rows.map((row) => row[1]);

describe('BatchModel when a worker thread dies', () => {
  let model: BatchModel;
  afterEach(() => model.dispose());

  it('fails the batch that was in the dead worker with 503 inference_failed, then answers from a fresh worker', async () => {
    model = await BatchModel.start(INIT, 'crashing', { workers: 1 }, crashingWorker);
    const error = await model.forward(['fine', 'crash']).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(InferenceFailedError);
    expect(error).to.include({ status: 503, code: 'inference_failed' });
    expect((error as Error).message).to.equal('Model "crashing" failed while answering: classification:crashing worker exited (code 9)');
    expect(lengths(await model.forward(['abc', 'de']))).to.deep.equal([3, 2]);
    expect(lengths(await model.forward(['x']))).to.deep.equal([1]);
  });

  it('keeps the other worker answering while one restarts', async () => {
    model = await BatchModel.start(INIT, 'crashing', { workers: 2 }, crashingWorker);
    const [crashed, survived] = await Promise.allSettled([model.forward(['crash']), model.forward(['four'])]);
    expect(crashed.status).to.equal('rejected');
    expect(survived).to.deep.equal({ status: 'fulfilled', value: [Float32Array.of(4, 1)] });
    const again = await Promise.all([model.forward(['a']), model.forward(['bb']), model.forward(['ccc'])]);
    expect(again.map(lengths)).to.deep.equal([[1], [2], [3]]);
  });
});

describe('BatchModel with a solo session', () => {
  let model: BatchModel;
  afterEach(() => model.dispose());

  it('answers a lone text on the solo session and concurrent calls on the single-thread workers', async () => {
    model = await BatchModel.start(INIT, 'solo', { workers: 2, soloThreads: 2 }, crashingWorker);
    expect(threads(await model.forward(['alone']))).to.deep.equal([2]);
    // A batch of several texts never goes to the solo session, even when nothing else runs.
    expect(threads(await model.forward(['a', 'b']))).to.deep.equal([1, 1]);
    const together = await Promise.all([model.forward(['one']), model.forward(['two']), model.forward(['three'])]);
    expect(together.map(threads)).to.deep.equal([[2], [1], [1]]);
  });

  it('restarts a crashed solo worker like any other', async () => {
    model = await BatchModel.start(INIT, 'solo', { workers: 1, soloThreads: 2 }, crashingWorker);
    const error = await model.forward(['crash']).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(InferenceFailedError);
    expect((error as Error).message).to.equal('Model "solo" failed while answering: classification:solo:solo worker exited (code 9)');
    expect(threads(await model.forward(['again']))).to.deep.equal([2]);
  });
});
