/**
 * Worker thread that turns OpenAI token ids back into text (js-tiktoken). An encoding's tables
 * are built on its first use, once per thread (cl100k_base: ~0.7 s and tens of MB, figures in
 * docs/benchmarks.md), which is why this is a thread of its own that stops when idle
 * (token-decoder.ts) rather than a cost every embedding worker or the event loop would carry.
 */
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { characterCount } from '../../character-count.js';
import { serveWorker } from '../worker/serve-worker.js';
import type { DecodeResult, TokenDecoderApi } from './token-decoder-protocol.js';
import type { TokenEncoding } from './token-encodings.js';

const RANKS: Record<TokenEncoding, () => Promise<{ default: TiktokenBPE }>> = {
  cl100k_base: () => import('js-tiktoken/ranks/cl100k_base'),
};

interface Decoder {
  decode(ids: Int32Array): string;
  /** Whether `id` is a token of the encoding: js-tiktoken decodes any other id to nothing, silently. */
  knows(id: number): boolean;
}

async function loadDecoder(encoding: TokenEncoding): Promise<Decoder> {
  const ranks = (await RANKS[encoding]()).default;
  const tiktoken = new Tiktoken(ranks);
  // Every token is at least one byte, so an id that decodes to "" is none. Asked once per id here,
  // through the public API, so each request checks its ids by a table look-up.
  const highest = Math.max(...Object.values(ranks.special_tokens));
  const known = new Uint8Array(highest + 1);
  for (let id = 0; id <= highest; id++) known[id] = tiktoken.decode([id]) === '' ? 0 : 1;
  return {
    // decode() reads only `length` and indices: a view of the request's ids needs no copy.
    decode: (ids) => tiktoken.decode(ids as unknown as number[]),
    knows: (id) => known[id] === 1,
  };
}

serveWorker<TokenDecoderApi>(() => {
  const decoders = new Map<TokenEncoding, Promise<Decoder>>();
  const decoderFor = (encoding: TokenEncoding) => {
    let decoder = decoders.get(encoding);
    if (!decoder) {
      decoder = loadDecoder(encoding);
      decoders.set(encoding, decoder);
      decoder.catch(() => decoders.delete(encoding));
    }
    return decoder;
  };
  return {
    decode: ({ encoding, ids, ends, maxCharacters }, { serial, step, signal }) =>
      serial(async (): Promise<DecodeResult> => {
        const decoder = await decoderFor(encoding);
        const texts: string[] = [];
        let characters = 0;
        for (let input = 0; input < ends.length; input++) {
          signal.throwIfAborted();
          const start = input === 0 ? 0 : (ends[input - 1] as number);
          const slice = ids.subarray(start, ends[input]);
          const unknown = slice.findIndex((id) => !decoder.knows(id));
          if (unknown !== -1) return { unknownId: { input, position: unknown, id: slice[unknown] as number } };
          // One input per turn: another requester's decode waits for one text, not for this batch.
          const text = await step(() => decoder.decode(slice));
          characters += characterCount(text);
          if (characters > maxCharacters) return { tooLong: { characters, inputs: input + 1 } };
          texts.push(text);
        }
        return { texts };
      }),
  };
});
