/** transformers.js weight dtypes; each selects one file suffix under onnx/ (q8 → *_quantized.onnx). */
export const DTYPES = ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'] as const;
export type Dtype = (typeof DTYPES)[number];
