/** transformers.js weight dtypes; each selects one file suffix under onnx/ (q8 → *_quantized.onnx). */
export const DTYPES = ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'] as const;
export type Dtype = (typeof DTYPES)[number];

/** The file suffix of each dtype in the transformers.js layout: `onnx/<part><suffix>.onnx`. */
export const DTYPE_SUFFIX: Readonly<Record<Dtype, string>> = Object.freeze({
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
});
