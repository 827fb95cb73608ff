import { expect } from 'chai';
import { WriteLedger } from '../../../scripts/cluster/write-ledger.js';

const ann = { name: 'Ann', email: 'ann@example.org' };
const annie = { name: 'Annie', email: 'annie@example.org' };
const bob = { name: 'Bob', email: 'bob@example.org' };

describe('replica test write ledger', () => {
  it('accepts a database holding exactly the acknowledged writes', () => {
    const ledger = new WriteLedger();
    ledger.created(1, ann);
    ledger.updated(1, annie);
    ledger.created(2, bob);
    ledger.deleted(2);
    expect(ledger.verify([{ id: 1, ...annie }])).to.deep.equal({ checked: 2, lost: [], unexplained: [] });
    expect(ledger.expected(1)).to.deep.equal(annie);
    expect(ledger.expected(2)).to.equal(null);
  });

  it('reports an acknowledged update, create or delete the database does not reflect', () => {
    const ledger = new WriteLedger();
    ledger.created(1, ann);
    ledger.updated(1, annie);
    ledger.created(2, bob);
    ledger.created(3, { name: 'Cy', email: 'cy@example.org' });
    ledger.deleted(3);
    const { lost } = ledger.verify([
      { id: 1, ...ann },
      { id: 3, name: 'Cy', email: 'cy@example.org' },
    ]);
    expect(lost).to.have.length(3);
    expect(lost[0]).to.match(/^user 1: acknowledged .*Annie.*, database has .*"Ann"/);
    expect(lost[1]).to.match(/^user 2: .*database has no row/);
    expect(lost[2]).to.match(/^user 3: acknowledged no row/);
  });

  it('allows either outcome of a write whose answer was lost, and cannot predict a read after it', () => {
    const ledger = new WriteLedger();
    ledger.created(1, ann);
    ledger.unanswered(1, annie);
    ledger.created(2, bob);
    ledger.unanswered(2, null);
    expect(ledger.expected(1)).to.equal(undefined);
    expect(
      ledger.verify([
        { id: 1, ...ann },
        { id: 2, ...bob },
      ]).lost,
    ).to.deep.equal([]);
    expect(ledger.verify([{ id: 1, ...annie }]).lost).to.deep.equal([]);
    expect(ledger.verify([{ id: 1, ...bob }]).lost).to.have.length(1);
  });

  it('explains an extra row only by an unanswered create with the same content', () => {
    const ledger = new WriteLedger();
    ledger.unansweredCreate(ann);
    expect(ledger.verify([{ id: 7, ...ann }]).unexplained).to.deep.equal([]);
    expect(
      ledger.verify([
        { id: 7, ...ann },
        { id: 8, ...bob },
      ]).unexplained,
    ).to.deep.equal(['user 8 {"name":"Bob","email":"bob@example.org"}']);
  });
});
