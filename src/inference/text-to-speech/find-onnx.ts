import { readdir } from 'node:fs/promises';

/** The voice file in a Piper model folder: the only `*.onnx` there (else name it in options). */
export async function findOnnx(modelDir: string): Promise<string> {
  const onnx = (await readdir(modelDir)).filter((name) => name.endsWith('.onnx'));
  if (onnx.length !== 1) {
    throw new Error(`expected exactly one .onnx voice in ${modelDir}, found ${onnx.length}; set options.onnxFile`);
  }
  return onnx[0] as string;
}
