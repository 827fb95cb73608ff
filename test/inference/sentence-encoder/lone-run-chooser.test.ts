import { expect } from 'chai';
import { EXPLORE_EVERY, LoneRunChooser, MAX_EXPLORE_EVERY, type LoneRunSide } from '../../../src/inference/sentence-encoder/lone-run-chooser.js';

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

  it('takes the faster side and, after EXPLORE_EVERY lone requests, sends two to the other', () => {
    const chooser = new LoneRunChooser();
    run(chooser, 4, { solo: 6, 'single-thread': 9 });
    const choices = run(chooser, EXPLORE_EVERY + 1, { solo: 6, 'single-thread': 9 });
    expect(choices.indexOf('single-thread')).to.equal(EXPLORE_EVERY - 1);
    expect(choices.filter((side) => side === 'single-thread')).to.have.length(2);
  });

  it('counts only the second run of an exploration: the first is slow after a switch', () => {
    const chooser = new LoneRunChooser();
    run(chooser, 4, { solo: 8, 'single-thread': 9 });
    run(chooser, EXPLORE_EVERY - 1, { solo: 8, 'single-thread': 9 });
    // The exploration: a cold first run (60 ms, not counted), then a fast one that puts single-thread in front.
    expect(run(chooser, 1, { solo: 8, 'single-thread': 60 })).to.deep.equal(['single-thread']);
    expect(run(chooser, 1, { solo: 8, 'single-thread': 2 })).to.deep.equal(['single-thread']);
    expect(run(chooser, 3, { solo: 8, 'single-thread': 2 })).to.deep.equal(['single-thread', 'single-thread', 'single-thread']);
  });

  it('explores half as often each time the other side stays clearly slower, down to one in MAX_EXPLORE_EVERY', () => {
    const chooser = new LoneRunChooser();
    run(chooser, 4, { solo: 6, 'single-thread': 9 });
    const choices = run(chooser, 3000, { solo: 6, 'single-thread': 9 });
    const stretches = choices
      .join(' ')
      .split('single-thread single-thread')
      .map((part) => part.trim().split(' ').filter(Boolean).length);
    expect(stretches.slice(0, 6)).to.deep.equal([EXPLORE_EVERY - 1, 63, 127, 255, MAX_EXPLORE_EVERY - 1, MAX_EXPLORE_EVERY - 1]);
  });

  it('does not flip on one stall of the faster side, and does on a few in a row', () => {
    const chooser = new LoneRunChooser();
    run(chooser, 8, { solo: 6, 'single-thread': 9 });
    run(chooser, 1, { solo: 60, 'single-thread': 9 });
    expect(run(chooser, 1, { solo: 6, 'single-thread': 9 })).to.deep.equal(['solo']);
    run(chooser, 3, { solo: 60, 'single-thread': 9 });
    expect(run(chooser, 1, { solo: 6, 'single-thread': 9 })).to.deep.equal(['single-thread']);
  });

  it('explores at EXPLORE_EVERY again after the faster side changed', () => {
    const chooser = new LoneRunChooser();
    run(chooser, 4, { solo: 6, 'single-thread': 9 });
    run(chooser, 300, { solo: 6, 'single-thread': 9 }); // explorations now 256 apart
    // The machine got busy: solo's average passes single-thread's on the third stall.
    expect(run(chooser, 3, { solo: 30, 'single-thread': 9 })).to.deep.equal(['solo', 'solo', 'solo']);
    // Quiet again: single-thread is used until solo, explored every EXPLORE_EVERY, is back in front.
    const choices = run(chooser, EXPLORE_EVERY * 3 + 1, { solo: 6, 'single-thread': 9 });
    expect(choices.indexOf('solo')).to.equal(EXPLORE_EVERY - 1);
    expect(choices.slice(EXPLORE_EVERY * 2 + 2, EXPLORE_EVERY * 3 + 1)).to.not.include('single-thread');
  });

  it('lets one exploration put back a side whose only counted run was slow', () => {
    const chooser = new LoneRunChooser();
    run(chooser, 1, { solo: 1000, 'single-thread': 9 });
    // Solo's first counted run was cold: single-thread looks faster.
    run(chooser, 3, { solo: 30, 'single-thread': 9 });
    const choices = run(chooser, EXPLORE_EVERY + 10, { solo: 6, 'single-thread': 9 });
    expect(choices.slice(0, EXPLORE_EVERY - 1)).to.not.include('solo');
    expect(choices.slice(EXPLORE_EVERY + 1)).to.not.include('single-thread');
  });

  it('follows a change of the faster side (other load on the machine)', () => {
    const chooser = new LoneRunChooser();
    run(chooser, EXPLORE_EVERY, { solo: 6, 'single-thread': 9 });
    run(chooser, EXPLORE_EVERY * 4, { solo: 17, 'single-thread': 9 });
    expect(run(chooser, 3, { solo: 17, 'single-thread': 9 })).to.deep.equal(['single-thread', 'single-thread', 'single-thread']);
  });
});
