import { expect } from 'chai';
import { ManifestError, type ManifestEntry } from '../../../src/inference/manifest.js';
import { describeLabels, labelSpecs } from '../../../src/inference/text-classification/classifier-options.js';
import { embeddingClassifier } from '../../../src/inference/text-classification/embedding-classifier.js';
import { transformersTextClassification } from '../../../src/inference/text-classification/transformers-text-classification.js';
import { transformersZeroShot } from '../../../src/inference/text-classification/transformers-zero-shot.js';
import { entry } from './fixture-models.js';

const bare = (options: Record<string, unknown>): ManifestEntry => ({ ...entry('m', 'embedding-classifier'), options });
const read = (options: Record<string, unknown>) => embeddingClassifier.options.read(bare(options));

describe('classifier options', () => {
  it('reads labels as names, a description, or several descriptions', () => {
    const specs = labelSpecs(read({ labels: ['a', { label: 'b', description: 'bee' }, { label: 'c', descriptions: ['one', 'two'] }] }));
    expect(specs).to.deep.equal([
      { label: 'a', descriptions: ['a'] },
      { label: 'b', descriptions: ['bee'] },
      { label: 'c', descriptions: ['one', 'two'] },
    ]);
    expect(describeLabels(read({ labels: ['a', { label: 'b' }] }))).to.deep.equal(['a', 'b']);
  });

  it('refuses duplicate labels and blank descriptions, naming the model and the field', () => {
    expect(() => read({ labels: ['a', 'a'] })).to.throw(ManifestError, /model "m".*options\.labels must be free of duplicates/);
    expect(() => read({ labels: [{ label: 'a', descriptions: [' '] }] })).to.throw(ManifestError, /options\.labels\[0\]/);
    expect(() => read({ labels: 'nope' })).to.throw(ManifestError, /options\.labels must be array/);
  });

  it('fills in the documented defaults', () => {
    expect(read({})).to.include({ dtype: 'fp32', maxBatchSize: 32, maxWaitMs: 0, temperature: 0.05 });
    expect(transformersZeroShot.options.read(bare({}))).to.include({ hypothesisTemplate: 'This example is {}.', multiLabel: false });
    expect(transformersTextClassification.options.read(bare({}))).to.include({ multiLabel: false });
  });

  it('refuses options of another engine, unknown options and bad values', () => {
    expect(() => transformersTextClassification.options.read(bare({ temperature: 1 }))).to.throw(ManifestError, /options\.temperature is not an option/);
    expect(() => read({ dtype: 'q9' })).to.throw(ManifestError, /options\.dtype must be one of fp32/);
    expect(() => read({ baseModel: '../x' })).to.throw(ManifestError, /options\.baseModel/);
    expect(() => read({ workers: 1.5 })).to.throw(ManifestError, /options\.workers must be integer/);
    expect(() => transformersZeroShot.options.read(bare({ hypothesisTemplate: 'no slot' }))).to.throw(ManifestError, /hypothesisTemplate/);
  });
});
