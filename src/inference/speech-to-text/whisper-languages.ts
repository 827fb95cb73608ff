/**
 * Languages Whisper was trained on (code, name), as in transformers.js `common_whisper.js` plus large-v3's `yue`.
 * Kept here so a bad `language` is a 400 naming the choices, checked before any work is done.
 */
const WHISPER_LANGUAGES: readonly (readonly [string, string])[] = [
  ['en', 'english'],
  ['zh', 'chinese'],
  ['de', 'german'],
  ['es', 'spanish'],
  ['ru', 'russian'],
  ['ko', 'korean'],
  ['fr', 'french'],
  ['ja', 'japanese'],
  ['pt', 'portuguese'],
  ['tr', 'turkish'],
  ['pl', 'polish'],
  ['ca', 'catalan'],
  ['nl', 'dutch'],
  ['ar', 'arabic'],
  ['sv', 'swedish'],
  ['it', 'italian'],
  ['id', 'indonesian'],
  ['hi', 'hindi'],
  ['fi', 'finnish'],
  ['vi', 'vietnamese'],
  ['he', 'hebrew'],
  ['uk', 'ukrainian'],
  ['el', 'greek'],
  ['ms', 'malay'],
  ['cs', 'czech'],
  ['ro', 'romanian'],
  ['da', 'danish'],
  ['hu', 'hungarian'],
  ['ta', 'tamil'],
  ['no', 'norwegian'],
  ['th', 'thai'],
  ['ur', 'urdu'],
  ['hr', 'croatian'],
  ['bg', 'bulgarian'],
  ['lt', 'lithuanian'],
  ['la', 'latin'],
  ['mi', 'maori'],
  ['ml', 'malayalam'],
  ['cy', 'welsh'],
  ['sk', 'slovak'],
  ['te', 'telugu'],
  ['fa', 'persian'],
  ['lv', 'latvian'],
  ['bn', 'bengali'],
  ['sr', 'serbian'],
  ['az', 'azerbaijani'],
  ['sl', 'slovenian'],
  ['kn', 'kannada'],
  ['et', 'estonian'],
  ['mk', 'macedonian'],
  ['br', 'breton'],
  ['eu', 'basque'],
  ['is', 'icelandic'],
  ['hy', 'armenian'],
  ['ne', 'nepali'],
  ['mn', 'mongolian'],
  ['bs', 'bosnian'],
  ['kk', 'kazakh'],
  ['sq', 'albanian'],
  ['sw', 'swahili'],
  ['gl', 'galician'],
  ['mr', 'marathi'],
  ['pa', 'punjabi'],
  ['si', 'sinhala'],
  ['km', 'khmer'],
  ['sn', 'shona'],
  ['yo', 'yoruba'],
  ['so', 'somali'],
  ['af', 'afrikaans'],
  ['oc', 'occitan'],
  ['ka', 'georgian'],
  ['be', 'belarusian'],
  ['tg', 'tajik'],
  ['sd', 'sindhi'],
  ['gu', 'gujarati'],
  ['am', 'amharic'],
  ['yi', 'yiddish'],
  ['lo', 'lao'],
  ['uz', 'uzbek'],
  ['fo', 'faroese'],
  ['ht', 'haitian creole'],
  ['ps', 'pashto'],
  ['tk', 'turkmen'],
  ['nn', 'nynorsk'],
  ['mt', 'maltese'],
  ['sa', 'sanskrit'],
  ['lb', 'luxembourgish'],
  ['my', 'myanmar'],
  ['bo', 'tibetan'],
  ['tl', 'tagalog'],
  ['mg', 'malagasy'],
  ['as', 'assamese'],
  ['tt', 'tatar'],
  ['haw', 'hawaiian'],
  ['ln', 'lingala'],
  ['ha', 'hausa'],
  ['ba', 'bashkir'],
  ['jw', 'javanese'],
  ['su', 'sundanese'],
  // large-v3 added Cantonese (`<|yue|>`, after `<|su|>`); older vocabularies lack it, which the engine checks per model.
  ['yue', 'cantonese'],
];

/** Every language code, in Whisper's token order (`yue`, large-v3's, last). */
export const WHISPER_LANGUAGE_CODES: readonly string[] = WHISPER_LANGUAGES.map(([code]) => code);

/** Codes transformers.js 4.3's Whisper generate() does not know (it throws on them); the long-form decoder takes them. */
const UNKNOWN_TO_TRANSFORMERS_JS = new Set(['yue']);

const CODE_BY_NAME = new Map(WHISPER_LANGUAGES.map(([code, name]) => [name, code]));
const CODES = new Set(WHISPER_LANGUAGES.map(([code]) => code));
const NAME_BY_CODE = new Map(WHISPER_LANGUAGES.map(([code, name]) => [code, name]));

/** `en` → `english`: the name OpenAI's verbose_json gives as `language`. */
export function whisperLanguageName(code: string): string | undefined {
  return NAME_BY_CODE.get(code);
}

/** Whether transformers.js's own Whisper generate() can be given this language (else our decoder must run). */
export function transformersJsKnowsLanguage(code: string): boolean {
  return !UNKNOWN_TO_TRANSFORMERS_JS.has(code);
}

/** `en`, `EN`, `english` → `en`; undefined when Whisper does not know the language. */
export function whisperLanguageCode(language: string): string | undefined {
  const lower = language.trim().toLowerCase();
  if (CODES.has(lower)) return lower;
  return CODE_BY_NAME.get(lower);
}
