/**
 * What token-id input to /v1/embeddings costs, at OpenAI's limits (300,000 ids): the edge's check
 * (embedding-token-input.ts, on the event loop), then the decode in the token-decoder thread
 * (token-decoder.ts), against the same decode done on the event loop (js-tiktoken, what the
 * thread saves the loop). The event loop's longest stall during each threaded decode is measured
 * with a 1-ms timer. The first threaded call also starts the thread and builds cl100k_base's
 * tables; the process's RSS before and after it is what the thread holds until it stops.
 *
 *   flock /tmp/bench.lock npx tsx scripts/bench/token-decode.ts [--rounds 5]
 */
import { parseArgs } from 'node:util';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { tokenInput } from '../../src/http/routes/v1/embedding-token-input.js';
import { TokenDecoder } from '../../src/inference/embeddings/token-decoder.js';
import { loadAverage } from '../eval/lib/load-average.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);

const sentence = 'The quick brown fox jumps over the lazy dog near the riverbank, while markets fell sharply on Tuesday. ';
const tiktokenStarted = performance.now();
const tiktoken = new Tiktoken(cl100k);
const mainThreadLoadMs = performance.now() - tiktokenStarted;
const english = tiktoken.encode(sentence.repeat(400));
const ids = (length: number) => english.slice(0, length);
const shapes: [string, number[][]][] = [
  ['36 x 8192 ids of English', Array.from({ length: 36 }, () => ids(8192))],
  ['2048 x 146 ids of English', Array.from({ length: 2048 }, () => ids(146))],
  // cl100k's longest token (128 spaces): stopped by the 2,400,000-character bound.
  ['36 x 8192 of the longest token', Array.from({ length: 36 }, () => Array.from({ length: 8192 }, () => 58040))],
];

/** The longest gap between 1-ms timer ticks while `work` runs: how long the event loop was held. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; stallMs: number }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  clearInterval(timer);
  stall = Math.max(stall, performance.now() - last);
  return { result, ms, stallMs: stall };
}

const fmt = (values: number[]) =>
  `median ${[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!.toFixed(1)} (${values.map((v) => v.toFixed(1)).join(', ')})`;

const decoder = new TokenDecoder();
console.log(`load average ${loadAverage()}; js-tiktoken cl100k tables on the event loop: ${mainThreadLoadMs.toFixed(0)} ms`);
const rssBefore = process.memoryUsage().rss;
const first = await longestStall(() => decoder.decode('cl100k_base', [[9906]], { maxCharacters: 2_400_000 }));
console.log(
  `first threaded call (thread start + tables): ${first.ms.toFixed(0)} ms, event loop's longest stall ${first.stallMs.toFixed(1)} ms; ` +
    `RSS +${((process.memoryUsage().rss - rssBefore) / 1e6).toFixed(0)} MB`,
);
for (const [name, input] of shapes) {
  const check: number[] = [];
  const threaded: number[] = [];
  const stalls: number[] = [];
  const inline: number[] = [];
  let outcome = '';
  for (let round = 0; round < rounds; round++) {
    const body = JSON.parse(JSON.stringify({ input })) as { input: unknown };
    let started = performance.now();
    const tokens = tokenInput(body.input)!;
    check.push(performance.now() - started);
    const run = await longestStall(() => decoder.decode('cl100k_base', tokens.inputs, { maxCharacters: 2_400_000 }));
    threaded.push(run.ms);
    stalls.push(run.stallMs);
    outcome = 'texts' in run.result ? `${run.result.texts.reduce((sum, text) => sum + text.length, 0)} characters` : JSON.stringify(run.result);
    started = performance.now();
    for (const array of tokens.inputs) tiktoken.decode(array);
    inline.push(performance.now() - started);
  }
  console.log(`${name} (${input.reduce((sum, array) => sum + array.length, 0)} ids): ${outcome}`);
  console.log(`  edge check on the loop, ms: ${fmt(check)}`);
  console.log(`  threaded decode, ms: ${fmt(threaded)}; loop's longest stall meanwhile, ms: ${fmt(stalls)}`);
  console.log(`  the same decode on the loop, ms: ${fmt(inline)}`);
}
await decoder.dispose();
console.log(`load average ${loadAverage()}`);
