import { expect } from 'chai';
import { EXPLORE_EVERY, LoneRunChooser, type LoneRunSide } from '../../../src/inference/sentence-encoder/lone-run-chooser.js';

/** Chooses `count` times, recording `latency[side]` ms for each choice; returns the choices. */
function run(chooser: LoneRunChooser, count: number, latency: Record<LoneRunSide, number>): LoneRunSide[] {
  return Array.from({ length: count }, () => {
    const side = chooser.choose();
    chooser.record(side, latency[side]);
    return side;
  });
}

describe('LoneRunChooser', () => {
  it('tries the solo session first, then the single-thread one, not counting either first run', () => {
    const chooser = new LoneRunChooser();
    // Each side's first run is set-up (1000 ms) and ignored, so it does not make that side look slow.
    expect(run(chooser, 1, { solo: 1000, 'single-thread': 1000 })).to.deep.equal(['solo']);
    expect(run(chooser, 1, { solo: 6, 'single-thread': 1000 })).to.deep.equal(['solo']);
    expect(run(chooser, 1, { solo: 6, 'single-thread': 1000 })).to.deep.equal(['single-thread']);
    expect(run(chooser, 2, { solo: 6, 'single-thread': 9 })).to.deep.equal(['single-thread', 'solo']);
  });

  it('takes the faster side and sends one lone request in EXPLORE_EVERY to the other', () => {
    const chooser = new LoneRunChooser();
    run(chooser, 4, { solo: 6, 'single-thread': 9 });
    const choices = run(chooser, EXPLORE_EVERY * 4, { solo: 6, 'single-thread': 9 });
    expect(choices.filter((side) => side === 'single-thread')).to.have.length(4);
  });

  it('follows a change of the faster side (other load on the machine)', () => {
    const chooser = new LoneRunChooser();
    run(chooser, EXPLORE_EVERY, { solo: 6, 'single-thread': 9 });
    run(chooser, EXPLORE_EVERY * 4, { solo: 17, 'single-thread': 9 });
    expect(run(chooser, 3, { solo: 17, 'single-thread': 9 })).to.deep.equal(['single-thread', 'single-thread', 'single-thread']);
  });
});
