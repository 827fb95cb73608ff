import { expect } from 'chai';
import { sentenceEmbeddingEngine } from '../../../src/inference/embeddings/sentence-embedding-engine.js';
import { ManifestError, type ManifestEntry } from '../../../src/inference/manifest.js';
import { batchOptions, workerLayout } from '../../../src/inference/sentence-encoder/encoder-options.js';

const embeddings = (options: Record<string, unknown>): ManifestEntry => ({
  id: 'e',
  task: 'embeddings',
  engine: 'sentence-embedding',
  description: 'an encoder',
  license: 'MIT',
  options,
});

describe('sentence-encoder options', () => {
  it('splits the cores between two workers by default, with a solo session on all cores for lone requests', () => {
    expect(workerLayout({}, 2)).to.deep.equal({ workers: 2, threads: 1, soloThreads: 2 });
    expect(workerLayout({}, 8)).to.deep.equal({ workers: 2, threads: 4, soloThreads: 8 });
    expect(workerLayout({}, 1)).to.deep.equal({ workers: 1, threads: 1, soloThreads: 0 });
    expect(workerLayout({ workers: 1, threads: 3 }, 8)).to.deep.equal({ workers: 1, threads: 3, soloThreads: 8 });
  });

  it('adds no solo session when one batch session already spans the cores, or when soloThreads is 0', () => {
    expect(workerLayout({ workers: 1 }, 2)).to.deep.equal({ workers: 1, threads: 2, soloThreads: 0 });
    expect(workerLayout({ soloThreads: 0 }, 2)).to.deep.equal({ workers: 2, threads: 1, soloThreads: 0 });
    expect(workerLayout({ soloThreads: 3 }, 2)).to.deep.equal({ workers: 2, threads: 1, soloThreads: 3 });
  });

  it('lets as many batches run at once as there are workers', () => {
    expect(batchOptions({ dtype: 'fp32', workers: 3, maxBatchSize: 8, maxWaitMs: 0, pooling: 'mean', memoryArena: false })).to.include({
      maxInFlight: 3,
      maxBatchSize: 8,
      maxWaitMs: 0,
    });
  });

  it("runs without onnxruntime's memory arena unless the manifest turns it on", () => {
    expect(sentenceEmbeddingEngine.options.read(embeddings({}))).to.include({ memoryArena: false });
    expect(sentenceEmbeddingEngine.options.read(embeddings({ memoryArena: true }))).to.include({ memoryArena: true });
    expect(() => sentenceEmbeddingEngine.options.read(embeddings({ memoryArena: 'on' }))).to.throw(ManifestError, /options\.memoryArena/);
  });
});
