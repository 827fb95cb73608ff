import { expect } from 'chai';
import type { ManifestEntry } from '../../../src/inference/manifest.js';
import { Residents, type Resident } from '../../../src/inference/lifecycle/residents.js';

const entry: ManifestEntry = { id: 'a', task: 'text-classification', engine: 'fake', description: '', license: '' };
const model = { dispose: async () => {} };

describe('residents', () => {
  it('starts one load for concurrent first requests, estimated by the files until it is measured', async () => {
    const residents = new Residents(() => 5);
    const started: Resident[] = [];
    let finish!: () => void;
    const loaded = new Promise<typeof model>((resolve) => (finish = () => resolve(model)));
    const start = (estimate: { load: number; warmup: number }) => {
      const resident = residents.add(entry, estimate, () => loaded);
      started.push(resident);
      return resident;
    };
    const [first, second] = await Promise.all([residents.acquire(entry, async () => 100, start), residents.acquire(entry, async () => 100, start)]);
    expect(started).to.have.length(1);
    expect(first).to.equal(second);
    expect(first).to.include({ bytes: 100, state: 'loading', lastUsed: 5 });
    finish();
    await first.ready;
    expect(first.state).to.equal('loaded');
    residents.recount(first, { load: 300, warmup: 20 });
    residents.remove(first);
    expect(residents.residency('a')).to.deep.equal({ state: 'unloaded', memoryBytes: 320, lastUsed: undefined });
    const again = await residents.acquire(entry, async () => 100, start);
    expect(again.footprint).to.deep.equal({ load: 300, warmup: 20 });
  });

  it('forgets a failed load, so the next request tries again', async () => {
    const residents = new Residents(() => 0);
    const failing = residents.add(entry, { load: 1, warmup: 0 }, () => Promise.reject(new Error('not installed')));
    await failing.ready.catch(() => {});
    expect(residents.get('a')).to.equal(undefined);
    expect(residents.residency('a')).to.equal(undefined);
  });
});
