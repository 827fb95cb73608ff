import { expect } from 'chai';
import {
  ClassifierOptionError,
  batchOptions,
  describeLabels,
  labelSpecs,
  workerLayout,
} from '../../../src/inference/text-classification/classifier-options.js';
import { entry } from './fixture-models.js';

const bare = (options: Record<string, unknown>) => ({ ...entry('m', 'embedding-classifier'), options });

describe('classifier options', () => {
  it('reads labels as names, a description, or several descriptions', () => {
    const specs = labelSpecs(bare({ labels: ['a', { label: 'b', description: 'bee' }, { label: 'c', descriptions: ['one', 'two'] }] }));
    expect(specs).to.deep.equal([
      { label: 'a', descriptions: ['a'] },
      { label: 'b', descriptions: ['bee'] },
      { label: 'c', descriptions: ['one', 'two'] },
    ]);
  });

  it('refuses duplicate labels and blank descriptions, naming the model', () => {
    expect(() => labelSpecs(bare({ labels: ['a', 'a'] }))).to.throw(ClassifierOptionError, /"m"/);
    expect(() => labelSpecs(bare({ labels: [{ label: 'a', descriptions: [' '] }] }))).to.throw(ClassifierOptionError);
  });

  it('never throws when describing, so one bad entry cannot break GET /v1/models', () => {
    expect(describeLabels(bare({ labels: 'nope' }))).to.equal(undefined);
  });

  it('splits the cores between two workers by default', () => {
    expect(workerLayout(bare({}), 2)).to.deep.equal({ workers: 2, threads: 1 });
    expect(workerLayout(bare({}), 8)).to.deep.equal({ workers: 2, threads: 4 });
    expect(workerLayout(bare({}), 1)).to.deep.equal({ workers: 1, threads: 1 });
    expect(workerLayout(bare({ workers: 1, threads: 3 }), 8)).to.deep.equal({ workers: 1, threads: 3 });
  });

  it('lets as many batches run at once as there are workers', () => {
    expect(batchOptions(bare({ workers: 3, maxBatchSize: 8 }))).to.include({ maxInFlight: 3, maxBatchSize: 8, maxWaitMs: 0 });
    expect(() => workerLayout(bare({ workers: 1.5 }))).to.throw(ClassifierOptionError);
  });
});
