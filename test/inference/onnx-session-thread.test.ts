/**
 * OnnxSessionThread over a small fixture model: the same names and outputs as the session in
 * this thread, outputs that are onnxruntime-node tensors, and a queued run dropped once its
 * signal aborts.
 */
import { join } from 'node:path';
import { expect } from 'chai';
import * as ort from 'onnxruntime-node';
import { OnnxSessionThread } from '../../src/inference/onnx-session-thread.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { expectSameFloats } from '../helpers/same-floats.js';

const MODEL = join(REPO_ROOT, 'test/fixtures/models/bert-sentiment-random/onnx/model.onnx');
const OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1 };

const feeds = (ids: number[]) => {
  const tensor = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [1, values.length]);
  return { input_ids: tensor(ids), attention_mask: tensor(ids.map(() => 1)), token_type_ids: tensor(ids.map(() => 0)) };
};

describe('OnnxSessionThread', function () {
  this.timeout(30_000);
  let local: ort.InferenceSession;
  let remote: OnnxSessionThread;

  before(async () => {
    local = await ort.InferenceSession.create(MODEL, OPTIONS);
    remote = await OnnxSessionThread.start({ onnxFile: MODEL, sessionOptions: OPTIONS, nice: 0 });
  });

  after(async () => {
    await local?.release();
    await remote?.release();
  });

  it('has the names and gives the outputs of the same session in this thread', async () => {
    expect(remote.inputNames).to.deep.equal(local.inputNames);
    expect(remote.outputNames).to.deep.equal(local.outputNames);
    const ids = [2, 50, 60, 3];
    const here = await local.run(feeds(ids));
    const there = await remote.run(feeds(ids));
    expect(there.logits).to.be.instanceOf(ort.Tensor);
    expect(there.logits!.dims).to.deep.equal(here.logits!.dims);
    expectSameFloats(there.logits!.data as Float32Array, here.logits!.data as Float32Array, 'logits');
  });

  it('drops a run still waiting its turn once its signal aborts', async () => {
    const controller = new AbortController();
    const first = remote.run(feeds([2, 3]));
    const second = remote.run(feeds([2, 3]), undefined, { signal: controller.signal }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    controller.abort(new Error('cancelled'));
    await first;
    expect(await second)
      .to.be.instanceOf(Error)
      .with.property('message', 'cancelled');
  });

  it('queues more runs on one signal than Node warns about without a warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const { signal } = new AbortController();
      await Promise.all(Array.from({ length: 16 }, () => remote.run(feeds([2, 3]), undefined, { signal })));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).to.deep.equal([]);
  });

  it('fails to start on a file that is not a model', async () => {
    const error = await OnnxSessionThread.start({ onnxFile: join(REPO_ROOT, 'package.json'), sessionOptions: OPTIONS, nice: 0 }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).to.be.instanceOf(Error);
  });
});
