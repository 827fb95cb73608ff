/**
 * Reads members out of a wheel (a zip archive) without Python: the central directory names each
 * member's offset, method and sizes, and a member is streamed out, inflated when deflated. Only
 * what wheels use is supported (stored or deflated members, no ZIP64, no encryption); anything
 * else is refused. The caller checks each member's bytes against their pinned sha256.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInflateRaw } from 'node:zlib';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InstallError } from './install-errors.js';

interface Member {
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

/** The members of the archive at `path`, by name. */
async function readMembers(path: string): Promise<Map<string, Member>> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    // The end record is 22 bytes plus a comment of at most 64 KiB.
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLength);
    await file.read(tail, 0, tailLength, size - tailLength);
    let end = -1;
    for (let at = tailLength - 22; at >= 0; at--) {
      if (tail.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
        end = at;
        break;
      }
    }
    if (end < 0) throw new InstallError(`${path} is not a zip archive (no end of central directory)`);
    const count = tail.readUInt16LE(end + 10);
    const directorySize = tail.readUInt32LE(end + 12);
    const directoryOffset = tail.readUInt32LE(end + 16);
    if (count === 0xffff || directoryOffset === 0xffffffff || directoryOffset + directorySize > size) {
      throw new InstallError(`${path}: ZIP64 or damaged archives are not supported`);
    }
    const directory = Buffer.alloc(directorySize);
    await file.read(directory, 0, directorySize, directoryOffset);
    const members = new Map<string, Member>();
    let at = 0;
    for (let index = 0; index < count; index++) {
      if (at + 46 > directory.length || directory.readUInt32LE(at) !== CENTRAL_HEADER) throw new InstallError(`${path}: damaged central directory`);
      const nameLength = directory.readUInt16LE(at + 28);
      const extraLength = directory.readUInt16LE(at + 30);
      const commentLength = directory.readUInt16LE(at + 32);
      const name = directory.toString('utf8', at + 46, at + 46 + nameLength);
      members.set(name, {
        flags: directory.readUInt16LE(at + 8),
        method: directory.readUInt16LE(at + 10),
        compressedSize: directory.readUInt32LE(at + 20),
        size: directory.readUInt32LE(at + 24),
        localHeaderOffset: directory.readUInt32LE(at + 42),
      });
      at += 46 + nameLength + extraLength + commentLength;
    }
    return members;
  } finally {
    await file.close();
  }
}

/** Writes member `name` of the archive at `path` to `dest`, refusing more than `maxBytes` of it (a pinned size). */
export async function extractMember(path: string, name: string, dest: string, maxBytes = Number.POSITIVE_INFINITY): Promise<void> {
  const member = (await readMembers(path)).get(name);
  if (!member) throw new InstallError(`${path} has no member ${name}`);
  if (member.flags & 0x1) throw new InstallError(`${path}: ${name} is encrypted`);
  if (member.method !== STORED && member.method !== DEFLATED) throw new InstallError(`${path}: ${name} uses compression method ${member.method}`);
  const file = await open(path, 'r');
  let dataStart: number;
  try {
    const header = Buffer.alloc(30);
    await file.read(header, 0, 30, member.localHeaderOffset);
    if (header.readUInt32LE(0) !== LOCAL_HEADER) throw new InstallError(`${path}: damaged local header of ${name}`);
    dataStart = member.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  } finally {
    await file.close();
  }
  if (member.compressedSize === 0) {
    await pipeline(async function* () {}, createWriteStream(dest));
    return;
  }
  const raw = createReadStream(path, { start: dataStart, end: dataStart + member.compressedSize - 1 });
  let written = 0;
  // A deflated member can expand without bound; stop at the size the manifest allows.
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      written += chunk.length;
      callback(written > maxBytes ? new InstallError(`${name} in ${path} is larger than the ${maxBytes} bytes pinned`) : null, chunk);
    },
  });
  if (member.method === STORED) await pipeline(raw, capped, createWriteStream(dest));
  else await pipeline(raw, createInflateRaw(), capped, createWriteStream(dest));
}
