/**
 * The memory realtime sessions hold before their input is processed, and its bounds
 * (RealtimeLimits): a client can send appends far faster than the audio worker reads them, and
 * every message received waits in memory until it is handled.
 *
 * A session's held bytes are the messages received but not yet handled, the 16-kHz audio it
 * buffers, and the audio of committed turns awaiting transcription. Past `sessionPauseBytes`
 * (or `maxPendingItems` turns, or `totalPauseBytes` over all sessions) its socket stops being
 * read; past `sessionMaxBytes` it is closed. A session is paused only while it has messages or
 * turns in hand, which drain without the client: one that waits for the client's `commit`
 * (its buffer is bounded by maxBufferSeconds / maxTurnSeconds) keeps being read, or it could
 * never receive that commit.
 */
import type { RealtimeLimits } from '../../config/load-config.js';

/**
 * What a queued message costs beyond its bytes (the parsed event, its promise and closures), so
 * a flood of tiny events is bounded too.
 */
export const MESSAGE_OVERHEAD_BYTES = 1024;
/** Bytes of one 16-kHz sample as sessions hold it (Float32). */
export const SAMPLE_BYTES = 4;

interface BudgetControl {
  pause(): void;
  resume(): void;
  /** The session holds more than `sessionMaxBytes`: it must be closed. */
  overflow(heldBytes: number): void;
}

type BudgetLimits = Pick<RealtimeLimits, 'sessionPauseBytes' | 'sessionMaxBytes' | 'totalPauseBytes' | 'maxPendingItems'>;

/** Every session's budget, and their total. */
export class RealtimeBudget {
  readonly limits: BudgetLimits;
  readonly #sessions = new Set<SessionBudget>();
  #held = 0;
  #peak = 0;

  constructor(limits: BudgetLimits) {
    this.limits = limits;
  }

  open(control: BudgetControl): SessionBudget {
    const session = new SessionBudget(this, control);
    this.#sessions.add(session);
    return session;
  }

  /** Bytes all open sessions hold now. */
  get heldBytes(): number {
    return this.#held;
  }

  /** The most any one session has held at once (tests and diagnostics). */
  get peakSessionBytes(): number {
    return this.#peak;
  }

  /** @internal A session's held bytes changed by `delta`. */
  changed(session: SessionBudget, delta: number): void {
    this.#held += delta;
    this.#peak = Math.max(this.#peak, session.heldBytes);
    if (delta > 0) {
      session.enforce();
      return;
    }
    // Less held somewhere: sessions paused for the total may go on.
    for (const other of this.#sessions) other.enforce();
  }

  /** @internal */
  closed(session: SessionBudget): void {
    this.#sessions.delete(session);
  }
}

/** One session's held bytes; the session and its endpoint report every change. */
export class SessionBudget {
  readonly #all: RealtimeBudget;
  readonly #control: BudgetControl;
  #messages = 0;
  #buffer = 0;
  #turns = 0;
  #turnCount = 0;
  #paused = false;
  #closed = false;

  constructor(all: RealtimeBudget, control: BudgetControl) {
    this.#all = all;
    this.#control = control;
  }

  get heldBytes(): number {
    return this.#messages + this.#buffer + this.#turns;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** A message of `bytes` arrived; it is held until `messageHandled`. */
  messageReceived(bytes: number): void {
    this.#change(() => (this.#messages += bytes + MESSAGE_OVERHEAD_BYTES));
  }

  messageHandled(bytes: number): void {
    this.#change(() => (this.#messages -= bytes + MESSAGE_OVERHEAD_BYTES));
  }

  /** The session now buffers `samples` of uncommitted audio. */
  buffered(samples: number): void {
    this.#change(() => (this.#buffer = samples * SAMPLE_BYTES));
  }

  /** A committed turn of `samples` awaits transcription until `turnDone`. */
  turnQueued(samples: number): void {
    this.#change(() => {
      this.#turns += samples * SAMPLE_BYTES;
      this.#turnCount++;
    });
  }

  turnDone(samples: number): void {
    this.#change(() => {
      this.#turns -= samples * SAMPLE_BYTES;
      this.#turnCount--;
    });
  }

  /** Releases everything the session held; later reports are ignored. */
  close(): void {
    if (this.#closed) return;
    const held = this.heldBytes;
    this.#closed = true;
    this.#messages = this.#buffer = this.#turns = this.#turnCount = 0;
    this.#all.closed(this);
    this.#all.changed(this, -held);
  }

  /** @internal Pauses, resumes or overflows the session by the current counts. */
  enforce(): void {
    if (this.#closed) return;
    const { sessionPauseBytes, sessionMaxBytes, totalPauseBytes, maxPendingItems } = this.#all.limits;
    const held = this.heldBytes;
    if (held > sessionMaxBytes) {
      this.#control.overflow(held);
      return;
    }
    const full = held >= sessionPauseBytes || this.#all.heldBytes >= totalPauseBytes || this.#turnCount >= maxPendingItems;
    const drainsAlone = this.#messages > 0 || this.#turnCount > 0;
    const pause = full && drainsAlone;
    if (pause && !this.#paused) this.#control.pause();
    if (!pause && this.#paused) this.#control.resume();
    this.#paused = pause;
  }

  #change(update: () => void): void {
    if (this.#closed) return;
    const before = this.heldBytes;
    update();
    const delta = this.heldBytes - before;
    if (delta !== 0) this.#all.changed(this, delta);
    else this.enforce();
  }
}
