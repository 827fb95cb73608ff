/**
 * Short language codes (what clients send: `es`, `zh`, `pt-BR`) and each model family's own
 * codes. The tables list only languages whose codes we checked against the family's vocabulary
 * (test/inference/translation/language-codes.test.ts checks every entry).
 */

/** Short code → FLORES-200 code used by NLLB-200. */
export const NLLB_CODES: Readonly<Record<string, string>> = Object.freeze({
  af: 'afr_Latn',
  am: 'amh_Ethi',
  ar: 'arb_Arab',
  ast: 'ast_Latn',
  az: 'azj_Latn',
  be: 'bel_Cyrl',
  bg: 'bul_Cyrl',
  bn: 'ben_Beng',
  bs: 'bos_Latn',
  ca: 'cat_Latn',
  cs: 'ces_Latn',
  cy: 'cym_Latn',
  da: 'dan_Latn',
  de: 'deu_Latn',
  el: 'ell_Grek',
  en: 'eng_Latn',
  eo: 'epo_Latn',
  es: 'spa_Latn',
  et: 'est_Latn',
  eu: 'eus_Latn',
  fa: 'pes_Arab',
  fi: 'fin_Latn',
  fr: 'fra_Latn',
  ga: 'gle_Latn',
  gl: 'glg_Latn',
  gu: 'guj_Gujr',
  ha: 'hau_Latn',
  he: 'heb_Hebr',
  hi: 'hin_Deva',
  hr: 'hrv_Latn',
  hu: 'hun_Latn',
  hy: 'hye_Armn',
  id: 'ind_Latn',
  is: 'isl_Latn',
  it: 'ita_Latn',
  ja: 'jpn_Jpan',
  ka: 'kat_Geor',
  kk: 'kaz_Cyrl',
  km: 'khm_Khmr',
  kn: 'kan_Knda',
  ko: 'kor_Hang',
  lt: 'lit_Latn',
  lv: 'lvs_Latn',
  mk: 'mkd_Cyrl',
  ml: 'mal_Mlym',
  mn: 'khk_Cyrl',
  mr: 'mar_Deva',
  ms: 'zsm_Latn',
  mt: 'mlt_Latn',
  my: 'mya_Mymr',
  ne: 'npi_Deva',
  nl: 'nld_Latn',
  no: 'nob_Latn',
  oc: 'oci_Latn',
  pa: 'pan_Guru',
  pl: 'pol_Latn',
  pt: 'por_Latn',
  ro: 'ron_Latn',
  ru: 'rus_Cyrl',
  si: 'sin_Sinh',
  sk: 'slk_Latn',
  sl: 'slv_Latn',
  so: 'som_Latn',
  sq: 'als_Latn',
  sr: 'srp_Cyrl',
  sv: 'swe_Latn',
  sw: 'swh_Latn',
  ta: 'tam_Taml',
  te: 'tel_Telu',
  th: 'tha_Thai',
  tl: 'tgl_Latn',
  tr: 'tur_Latn',
  uk: 'ukr_Cyrl',
  ur: 'urd_Arab',
  uz: 'uzn_Latn',
  vi: 'vie_Latn',
  yo: 'yor_Latn',
  zh: 'zho_Hans',
  'zh-cn': 'zho_Hans',
  'zh-hans': 'zho_Hans',
  'zh-tw': 'zho_Hant',
  'zh-hant': 'zho_Hant',
  zu: 'zul_Latn',
});

/** M2M100 uses short codes itself (`__es__` tokens); these are the 100 it was trained on. */
export const M2M100_CODES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    (
      'af am ar ast az ba be bg bn br bs ca ceb cs cy da de el en es et fa ff fi fr fy ga gd gl gu ha he hi hr ' +
      'ht hu hy id ig ilo is it ja jv ka kk km kn ko lb lg ln lo lt lv mg mk ml mn mr ms my ne nl no ns oc ' +
      'or pa pl ps pt ro ru sd si sk sl so sq sr ss su sv sw ta th tl tn tr uk ur uz vi wo xh yi yo zh zu'
    )
      .split(' ')
      .map((code) => [code, code]),
  ),
);

/** Three-letter ISO 639-2/3 codes (Apertium's own naming) → short codes. */
const THREE_LETTER: Readonly<Record<string, string>> = Object.freeze({
  eng: 'en',
  spa: 'es',
  cat: 'ca',
  fra: 'fr',
  fre: 'fr',
  deu: 'de',
  ger: 'de',
  por: 'pt',
  ita: 'it',
  glg: 'gl',
  eus: 'eu',
  baq: 'eu',
  oci: 'oc',
  arg: 'an',
  nld: 'nl',
  dut: 'nl',
  ron: 'ro',
  rum: 'ro',
  rus: 'ru',
  ukr: 'uk',
  pol: 'pl',
  swe: 'sv',
  dan: 'da',
  nob: 'nb',
  nno: 'nn',
  isl: 'is',
  epo: 'eo',
  zho: 'zh',
  chi: 'zh',
  jpn: 'ja',
  kor: 'ko',
  ara: 'ar',
  hin: 'hi',
  tur: 'tr',
  ell: 'el',
  gre: 'el',
});

/**
 * The code among `supported` that the client meant: exact match first (`zh-tw`), then a
 * three-letter alias (`spa` → `es`), then the primary subtag (`es-mx` → `es`).
 */
export function resolveLanguage(code: string, supported: readonly string[]): string | undefined {
  const normalized = code.trim().toLowerCase().replace(/_/g, '-');
  if (supported.includes(normalized)) return normalized;
  const primary = normalized.split('-')[0] as string;
  const short = THREE_LETTER[primary] ?? primary;
  return supported.includes(short) ? short : undefined;
}

/** The short-code map of each multilingual family. */
export const FAMILY_CODES = { nllb: NLLB_CODES, m2m100: M2M100_CODES } as const;
