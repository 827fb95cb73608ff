/**
 * What the database must hold after the replica test: every write the server acknowledged
 * (201 create, 200 update, 204 delete) with its exact content. A write whose answer was lost
 * (the replica died with it in flight) may or may not have happened, so it adds an allowed
 * state instead; its user is not written again. A row nobody was told about is allowed only if
 * it is such an unanswered create (matched by its unique email).
 */

export interface UserContent {
  name: string;
  email: string;
}

/** A user's content, or null once deleted. */
type UserState = UserContent | null;

interface Entry {
  acknowledged: UserState;
  /** States left by writes whose answers were lost after the last acknowledged one. */
  possible: UserState[];
}

export interface Verification {
  /** Users whose row was compared. */
  checked: number;
  /** One line per acknowledged write the database does not reflect. */
  lost: string[];
  /** Rows that no acknowledged or unanswered write explains (a create run twice, say). */
  unexplained: string[];
}

export class WriteLedger {
  readonly #users = new Map<number, Entry>();
  readonly #unansweredCreates = new Map<string, UserContent>();
  readonly counts = { created: 0, updated: 0, deleted: 0, unanswered: 0 };

  created(id: number, content: UserContent): void {
    this.#users.set(id, { acknowledged: content, possible: [] });
    this.counts.created += 1;
  }

  updated(id: number, content: UserContent): void {
    this.#users.set(id, { acknowledged: content, possible: [] });
    this.counts.updated += 1;
  }

  deleted(id: number): void {
    this.#users.set(id, { acknowledged: null, possible: [] });
    this.counts.deleted += 1;
  }

  /** An update (content) or delete (null) of `id` sent without an answer. */
  unanswered(id: number, state: UserState): void {
    this.#users.get(id)?.possible.push(state);
    this.counts.unanswered += 1;
  }

  unansweredCreate(content: UserContent): void {
    this.#unansweredCreates.set(content.email, content);
    this.counts.unanswered += 1;
  }

  /** The content a read of `id` must return now, or undefined if it cannot be known. */
  expected(id: number): UserState | undefined {
    const entry = this.#users.get(id);
    return entry && entry.possible.length === 0 ? entry.acknowledged : undefined;
  }

  verify(rows: readonly ({ id: number } & UserContent)[]): Verification {
    const byId = new Map(rows.map((row) => [row.id, row]));
    const lost: string[] = [];
    for (const [id, entry] of this.#users) {
      const row = byId.get(id);
      const actual: UserState = row ? { name: row.name, email: row.email } : null;
      if (![entry.acknowledged, ...entry.possible].some((state) => same(state, actual))) {
        lost.push(`user ${id}: acknowledged ${describe(entry.acknowledged)}, database has ${describe(actual)}`);
      }
    }
    const unexplained = rows
      .filter((row) => !this.#users.has(row.id) && !same(this.#unansweredCreates.get(row.email) ?? null, { name: row.name, email: row.email }))
      .map((row) => `user ${row.id} ${describe(row)}`);
    return { checked: this.#users.size, lost, unexplained };
  }
}

const same = (a: UserState, b: UserState) => (a === null || b === null ? a === b : a.name === b.name && a.email === b.email);
const describe = (state: UserState) => (state ? JSON.stringify({ name: state.name, email: state.email }) : 'no row');
