import { expect } from 'chai';
import { messageField, readFields, texts, textField, varintField, writeFields } from '../../src/inference/speech-to-text/graph/protobuf-fields.js';

describe('protobuf fields', () => {
  it('writes back what it reads, byte for byte, nested messages and large varints included', () => {
    const inner = [textField(1, 'past_key_values.0.encoder.key'), varintField(3, -1n), { field: 4, wire: 5 as const, value: Uint8Array.of(1, 2, 3, 4) }];
    const bytes = writeFields([varintField(1, 300), messageField(7, inner), { field: 9, wire: 1, value: new Uint8Array(8).fill(7) }]);
    expect(writeFields(readFields(bytes))).to.deep.equal(bytes);
    const [first, nested] = readFields(bytes);
    expect(first).to.deep.equal({ field: 1, wire: 0, value: 300n });
    const fields = readFields(nested!.value as Uint8Array);
    expect(texts(fields, 1)).to.deep.equal(['past_key_values.0.encoder.key']);
    expect(BigInt.asIntN(64, fields[1]!.value as bigint)).to.equal(-1n);
  });

  it('refuses truncated input', () => {
    const bytes = writeFields([textField(2, 'name')]);
    expect(() => readFields(bytes.subarray(0, bytes.length - 1))).to.throw(/truncated/);
  });
});
