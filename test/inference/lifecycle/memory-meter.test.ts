import { expect } from 'chai';
import { MemoryMeter } from '../../../src/inference/lifecycle/memory-meter.js';

/** A load the test finishes: `grow` bytes are added to the fake RSS when it resolves. */
function pendingLoad(state: { rss: number }, grow: number) {
  let finish!: () => void;
  const done = new Promise<string>((resolve) => (finish = () => ((state.rss += grow), resolve('model'))));
  return { load: () => done, finish };
}

describe('memory meter', () => {
  it('answers the RSS a load added when it ran alone, never less than 0', async () => {
    const state = { rss: 1_000 };
    const meter = new MemoryMeter(() => state.rss);
    expect(await meter.measureLoad(async () => ((state.rss += 300), 'model'))).to.deep.equal({ value: 'model', growth: 300 });
    expect(await meter.measureLoad(async () => ((state.rss -= 50), 'model'))).to.deep.equal({ value: 'model', growth: 0 });
  });

  it('answers no figure for loads that overlapped, then measures the next lone one', async () => {
    const state = { rss: 1_000 };
    const meter = new MemoryMeter(() => state.rss);
    const a = pendingLoad(state, 100);
    const b = pendingLoad(state, 200);
    const measuringA = meter.measureLoad(a.load);
    const measuringB = meter.measureLoad(b.load);
    a.finish();
    b.finish();
    expect((await measuringA).growth).to.equal(undefined);
    expect((await measuringB).growth).to.equal(undefined);
    expect((await meter.measureLoad(async () => ((state.rss += 10), 'model'))).growth).to.equal(10);
  });

  it('answers no figure for a load during a call, nor for that call', async () => {
    const state = { rss: 1_000 };
    const meter = new MemoryMeter(() => state.rss);
    const end = meter.beginCall(true);
    expect((await meter.measureLoad(async () => ((state.rss += 100), 'model'))).growth).to.equal(undefined);
    state.rss += 50;
    expect(end()).to.equal(undefined);
  });

  it('measures a first call that ran alone, not a later call or one another call overlapped', () => {
    const state = { rss: 1_000 };
    const meter = new MemoryMeter(() => state.rss);
    const first = meter.beginCall(true);
    state.rss += 40;
    expect(first()).to.equal(40);
    const later = meter.beginCall(false);
    state.rss += 40;
    expect(later()).to.equal(undefined);
    const overlapped = meter.beginCall(true);
    const other = meter.beginCall(false);
    state.rss += 40;
    expect(other()).to.equal(undefined);
    expect(overlapped()).to.equal(undefined);
  });

  it('measures nothing without an RSS reader', async () => {
    const meter = new MemoryMeter(null);
    expect(await meter.measureLoad(async () => 'model')).to.deep.equal({ value: 'model', growth: undefined });
    expect(meter.beginCall(true)()).to.equal(undefined);
  });

  it('rejects as the load did', async () => {
    const meter = new MemoryMeter(() => 1_000);
    const error = await meter.measureLoad(() => Promise.reject(new Error('broken'))).catch((caught: Error) => caught);
    expect(error).to.have.property('message', 'broken');
  });
});
