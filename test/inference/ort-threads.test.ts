import { expect } from 'chai';
import { threadSessionOptions } from '../../src/inference/ort-threads.js';

describe('ORT thread options', () => {
  const session = (choice: Parameters<typeof threadSessionOptions>[0]) => threadSessionOptions(choice).extra.session as Record<string, string>;

  it('spins for onnxruntime’s own time, for at most the given microseconds, or not at all', () => {
    expect(session({ spinning: true }))
      .to.deep.include({ 'intra_op.allow_spinning': '1' })
      .and.not.have.property('intra_op.spin_duration_us');
    expect(session({ spinning: 100 })).to.deep.include({ 'intra_op.allow_spinning': '1', 'intra_op.spin_duration_us': '100' });
    expect(session({ spinning: false }))
      .to.deep.include({ 'intra_op.allow_spinning': '0' })
      .and.not.have.property('intra_op.spin_duration_us');
  });

  it('never lets the unused inter-op pool spin, and stops spinning after a run only when asked', () => {
    expect(session({ spinning: true }))
      .to.deep.include({ 'inter_op.allow_spinning': '0' })
      .and.not.have.property('force_spinning_stop');
    expect(session({ spinning: true, stopSpinningAfterRun: true })).to.deep.include({ force_spinning_stop: '1' });
    expect(threadSessionOptions({ spinning: false, threads: 2 })).to.include({ intraOpNumThreads: 2, interOpNumThreads: 1 });
  });
});
