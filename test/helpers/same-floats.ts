/**
 * Asserts two float arrays are identical, bit for bit. chai's deep.equal on spread arrays of
 * hundreds of thousands of numbers (a vocabulary's logits) took tens of seconds; this compares
 * the bytes and names the first sample that differs.
 */
import { expect } from 'chai';

export function expectSameFloats(actual: Float32Array, expected: Float32Array, what = 'samples'): void {
  expect(actual.length, `${what}: length`).to.equal(expected.length);
  const bytes = (array: Float32Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  if (bytes(actual).equals(bytes(expected))) return;
  const at = actual.findIndex((value, index) => !Object.is(value, expected[index]));
  expect.fail(`${what} differ first at [${at}]: ${actual[at]} instead of ${expected[at]}`);
}
