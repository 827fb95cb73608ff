/**
 * Which tokenizer an OpenAI embedding model name claims for `input` sent as token ids: the one
 * tiktoken's model table gives it (LangChain's OpenAIEmbeddings tokenises with it and sends the
 * ids). Our own model ids claim none: their ids would be the model's own tokenizer's, which no
 * OpenAI client makes, so the ids could not be read as the client meant them.
 */
const TOKEN_ENCODINGS = ['cl100k_base'] as const;
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];

const CLAIMED: Readonly<Record<string, TokenEncoding>> = Object.freeze({
  'text-embedding-3-small': 'cl100k_base',
  'text-embedding-3-large': 'cl100k_base',
  'text-embedding-ada-002': 'cl100k_base',
});

/** The encoding whose ids a request naming `model` sends; undefined for a name that claims none. */
export function claimedEncoding(model: string): TokenEncoding | undefined {
  return Object.hasOwn(CLAIMED, model) ? CLAIMED[model] : undefined;
}

/** The model names that claim an encoding, for messages that say what to send instead. */
export const TOKENIZED_MODEL_NAMES: readonly string[] = Object.freeze(Object.keys(CLAIMED));
