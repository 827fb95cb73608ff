import { expect } from 'chai';
import fc from 'fast-check';
import { MESSAGE_OVERHEAD_BYTES, RealtimeBudget, SAMPLE_BYTES, type SessionBudget } from '../../../src/http/realtime/session-budget.js';
import { fuzzRuns } from '../../helpers/fuzz-runs.js';

const LIMITS = { sessionPauseBytes: 10_000, sessionMaxBytes: 40_000, totalPauseBytes: 15_000, maxPendingItems: 3 };

/** A budget whose sessions record whether they are paused and whether they overflowed. */
function budgetWith(limits = LIMITS) {
  const all = new RealtimeBudget(limits);
  const open = () => {
    const state = { paused: false, overflowed: 0 };
    const session: SessionBudget = all.open({
      pause: () => (state.paused = true),
      resume: () => (state.paused = false),
      overflow: () => {
        state.overflowed++;
        session.close();
      },
    });
    return { session, state };
  };
  return { all, open };
}

const samples = (bytes: number) => bytes / SAMPLE_BYTES;

describe('RealtimeBudget (bytes realtime sessions hold unprocessed)', () => {
  it('pauses a session at its bound while it has messages or turns in hand, and resumes as they drain', () => {
    const { open } = budgetWith();
    const { session, state } = open();
    session.turnQueued(samples(8_000));
    session.messageReceived(4_000 - MESSAGE_OVERHEAD_BYTES);
    expect(state.paused).to.equal(true);
    session.messageHandled(4_000 - MESSAGE_OVERHEAD_BYTES);
    expect(state.paused).to.equal(false);
  });

  it('never pauses a session that waits for its client, however much audio it buffers', () => {
    const { open } = budgetWith();
    const { session, state } = open();
    // A full uncommitted buffer and nothing in hand: only the client's commit can free it.
    session.buffered(samples(12_000));
    expect(state.paused).to.equal(false);
    session.messageReceived(100);
    expect(state.paused).to.equal(true);
    session.messageHandled(100);
    expect(state.paused, 'waiting for the client again').to.equal(false);
  });

  it('pauses at maxPendingItems turns whatever their size', () => {
    const { open } = budgetWith();
    const { session, state } = open();
    for (let i = 0; i < 3; i++) session.turnQueued(1);
    expect(state.paused).to.equal(true);
    session.turnDone(1);
    expect(state.paused).to.equal(false);
  });

  it('pauses another session past the total, and resumes it when the first drains', () => {
    const { all, open } = budgetWith();
    const first = open();
    const second = open();
    first.session.turnQueued(samples(9_000));
    second.session.turnQueued(samples(6_000));
    expect(all.heldBytes).to.equal(15_000);
    expect(second.state.paused).to.equal(true);
    expect(first.state.paused).to.equal(false);
    first.session.turnDone(samples(9_000));
    expect(second.state.paused).to.equal(false);
  });

  it('overflows past sessionMaxBytes, and a closed session gives everything back', () => {
    const { all, open } = budgetWith();
    const { session, state } = open();
    session.buffered(samples(30_000));
    session.messageReceived(20_000);
    expect(state.overflowed).to.equal(1);
    expect(all.heldBytes).to.equal(0);
    session.messageHandled(20_000);
    expect(all.heldBytes, 'reports after close are ignored').to.equal(0);
  });

  it('keeps its total equal to the sum of its open sessions under any sequence of reports (property)', () => {
    type Step = { session: number; kind: 'message' | 'buffer' | 'turn' | 'close'; bytes: number };
    const step = fc.record({
      session: fc.integer({ min: 0, max: 2 }),
      kind: fc.constantFrom<Step['kind']>('message', 'buffer', 'turn', 'close'),
      bytes: fc.integer({ min: 0, max: 3_000 }).map((n) => n * SAMPLE_BYTES),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const { all, open } = budgetWith({ ...LIMITS, sessionMaxBytes: Number.MAX_SAFE_INTEGER });
        const sessions = [open(), open(), open()].map((opened) => ({ ...opened, messages: [] as number[], turns: [] as number[], closed: false }));
        for (const { session: index, kind, bytes } of steps) {
          const s = sessions[index]!;
          if (kind === 'close') {
            s.session.close();
            s.closed = true;
          } else if (kind === 'buffer') {
            s.session.buffered(bytes / SAMPLE_BYTES);
          } else if (kind === 'message') {
            // Received, or the oldest handled.
            if (s.messages.length > 0 && bytes % 8 === 0) {
              s.session.messageHandled(s.messages.shift()!);
            } else {
              s.session.messageReceived(bytes);
              s.messages.push(bytes);
            }
          } else if (s.turns.length > 0 && bytes % 8 === 0) {
            s.session.turnDone(s.turns.shift()! / SAMPLE_BYTES);
          } else {
            s.session.turnQueued(bytes / SAMPLE_BYTES);
            s.turns.push(bytes);
          }
          const live = sessions.filter((s) => !s.closed);
          expect(all.heldBytes).to.equal(live.reduce((sum, s) => sum + s.session.heldBytes, 0));
          for (const s of live) {
            const inHand = s.messages.length > 0 || s.turns.length > 0;
            const full = s.session.heldBytes >= LIMITS.sessionPauseBytes || all.heldBytes >= LIMITS.totalPauseBytes || s.turns.length >= LIMITS.maxPendingItems;
            // Paused only with work in hand; and a session that is itself full and has work is paused.
            if (s.state.paused) expect(inHand).to.equal(true);
            if (inHand && (s.session.heldBytes >= LIMITS.sessionPauseBytes || s.turns.length >= LIMITS.maxPendingItems)) expect(s.state.paused).to.equal(true);
            if (!full) expect(s.state.paused).to.equal(false);
          }
        }
      }),
      { numRuns: fuzzRuns(200) },
    );
  });
});
