/**
 * The previous-text prompt of a Whisper window, built as openai/whisper and faster-whisper build
 * it: `<|startofprev|>`, then faster-whisper's hotwords (in every window), then the end of the text
 * so far, which starts with the initial prompt (OpenAI's `prompt`) until a prompt reset drops it.
 * The window decoder prepends `<|startofprev|>` to what this returns.
 */
import { MAX_PROMPT_TOKENS } from './window-decode-request.js';

/** Text as openai/whisper encodes an initial prompt or hotwords: one leading space, as if mid-transcript. */
export function promptText(text: string): string {
  return ` ${text.trim()}`;
}

/**
 * The window's prompt tokens, at most MAX_PROMPT_TOKENS: hotwords first (truncated from their end,
 * as faster-whisper does), then as much of the previous text as fits, from its end. faster-whisper
 * gives each up to 223 tokens; together they would leave a 448-token decoder about 60 tokens for a
 * window's text, so here they share openai/whisper's one budget.
 */
export function windowPrompt(hotwords: readonly number[], previous: readonly number[]): number[] {
  const kept = hotwords.slice(0, MAX_PROMPT_TOKENS);
  const room = MAX_PROMPT_TOKENS - kept.length;
  return room > 0 ? [...kept, ...previous.slice(Math.max(0, previous.length - room))] : kept;
}
