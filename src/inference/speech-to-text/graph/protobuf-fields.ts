/**
 * Protocol Buffers' wire format as a flat list of fields, for editing a few fields of an ONNX
 * graph (grouped-cross-attention.ts) without a schema: every field read is written back as it
 * was, byte for byte, unless replaced, so whatever the edit does not touch survives unparsed.
 * Length-delimited values are views into the bytes read, not copies.
 */

/** One field as it lies on the wire: 0 varint, 1 fixed 64-bit, 2 length-delimited, 5 fixed 32-bit. */
export type ProtoField = { field: number; wire: 0; value: bigint } | { field: number; wire: 1 | 2 | 5; value: Uint8Array };

export function readFields(bytes: Uint8Array): ProtoField[] {
  const fields: ProtoField[] = [];
  let at = 0;
  const varint = () => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= bytes.length) throw new Error('protobuf: truncated varint');
      const byte = bytes[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
  };
  const take = (length: number) => {
    if (at + length > bytes.length) throw new Error('protobuf: truncated field');
    const value = bytes.subarray(at, at + length);
    at += length;
    return value;
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const field = key >>> 3;
    const wire = key & 7;
    if (wire === 0) fields.push({ field, wire, value: varint() });
    else if (wire === 2) fields.push({ field, wire, value: take(Number(varint())) });
    else if (wire === 1) fields.push({ field, wire, value: take(8) });
    else if (wire === 5) fields.push({ field, wire, value: take(4) });
    else throw new Error(`protobuf: unsupported wire type ${wire}`);
  }
  return fields;
}

export function writeFields(fields: readonly ProtoField[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const field of fields) {
    parts.push(varintBytes(BigInt((field.field << 3) | field.wire)));
    if (field.wire === 0) parts.push(varintBytes(field.value));
    else {
      if (field.wire === 2) parts.push(varintBytes(BigInt(field.value.length)));
      parts.push(field.value);
    }
  }
  return Buffer.concat(parts);
}

function varintBytes(value: bigint): Uint8Array {
  let rest = BigInt.asUintN(64, value);
  const bytes: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest ? low | 0x80 : low);
  } while (rest);
  return Uint8Array.from(bytes);
}

/** A length-delimited field holding `text` (UTF-8). */
export function textField(field: number, text: string): ProtoField {
  return { field, wire: 2, value: new TextEncoder().encode(text) };
}

export function messageField(field: number, message: readonly ProtoField[]): ProtoField {
  return { field, wire: 2, value: writeFields(message) };
}

export function varintField(field: number, value: number | bigint): ProtoField {
  return { field, wire: 0, value: BigInt(value) };
}

/** The texts of every length-delimited `field` (repeated strings). */
export function texts(fields: readonly ProtoField[], field: number): string[] {
  const decoder = new TextDecoder();
  return fields.flatMap((one) => (one.field === field && one.wire === 2 ? [decoder.decode(one.value)] : []));
}
