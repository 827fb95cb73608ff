import { expect } from 'chai';
import { InferenceFailedError, ModelFilesError } from '../../../src/errors.js';
import { fromWireError, toWireError } from '../../../src/inference/worker/wire-error.js';

/** As an error crosses postMessage: wire form, structured clone, rebuilt. */
const crossed = (error: Error) => fromWireError(structuredClone(toWireError(error)));

describe('errors across the worker seam (wire-error.ts)', () => {
  it('keeps a 503 written for clients readable, with its model, file and fix', () => {
    const error = crossed(new ModelFilesError('silero-vad-v6', 'silero-vad-v6/silero_vad_v6.onnx', 'is missing', 'Reinstall it'));
    expect(error).to.be.instanceOf(ModelFilesError);
    expect(error).to.deep.include({ status: 503, code: 'model_unavailable', expose: true, modelId: 'silero-vad-v6', file: 'silero-vad-v6/silero_vad_v6.onnx' });
    expect(error.message).to.equal('Model "silero-vad-v6" cannot be loaded: silero-vad-v6/silero_vad_v6.onnx is missing. Reinstall it');
  });

  it('keeps the model of an unexposed 503, which the error middleware names', () => {
    const error = crossed(new InferenceFailedError('whisper-tiny.en', 'encoder thread exited'));
    expect(error).to.be.instanceOf(InferenceFailedError);
    expect(error).to.deep.include({ expose: false, modelId: 'whisper-tiny.en', reason: 'encoder thread exited' });
  });
});
