import { expect } from 'chai';
import { SharedResources } from '../../../src/inference/sentence-encoder/shared-resources.js';

describe('SharedResources', () => {
  let disposed: string[];
  let resources: SharedResources<string>;
  beforeEach(() => {
    disposed = [];
    resources = new SharedResources(async (value) => void disposed.push(value));
  });

  it('starts a key once for concurrent acquires and disposes it on the last release only', async () => {
    let starts = 0;
    const start = async () => `model-${++starts}`;
    const [a, b] = await Promise.all([resources.acquire('k', start), resources.acquire('k', start)]);
    expect([a.value, b.value, starts]).to.deep.equal(['model-1', 'model-1', 1]);
    await a.release();
    await a.release(); // a second release of the same lease does not count
    expect(disposed).to.deep.equal([]);
    expect(resources.size).to.equal(1);
    await b.release();
    expect(disposed).to.deep.equal(['model-1']);
    expect(resources.size).to.equal(0);
  });

  it('keeps different keys apart and starts a key afresh after its last release', async () => {
    let starts = 0;
    const start = async () => `model-${++starts}`;
    const a = await resources.acquire('a', start);
    const b = await resources.acquire('b', start);
    expect([a.value, b.value]).to.deep.equal(['model-1', 'model-2']);
    await a.release();
    const again = await resources.acquire('a', start);
    expect(again.value).to.equal('model-3');
    await Promise.all([b.release(), again.release()]);
    expect(disposed.sort()).to.deep.equal(['model-1', 'model-2', 'model-3']);
  });

  it('forgets a start that failed, for every waiter, so the next acquire tries again', async () => {
    const failure = new Error('no weights');
    const failing = () => Promise.reject(failure);
    const results = await Promise.allSettled([resources.acquire('k', failing), resources.acquire('k', failing)]);
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
    expect(resources.size).to.equal(0);
    const lease = await resources.acquire('k', async () => 'fixed');
    expect(lease.value).to.equal('fixed');
    await lease.release();
  });
});
