import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelFilesCheck } from '../../src/inference/model-files-check.js';
import { externalDataReferences, OnnxFileError } from '../../src/inference/onnx-external-data.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { outlineWeights } from '../helpers/onnx-outline.js';
import { rejection } from '../helpers/rejection.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/models');

describe('model files check (model-files-check.ts, onnx-external-data.ts)', () => {
  let dir: string;
  let modelDir: string;
  let graph: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-files-'));
    modelDir = join(dir, 'm');
    cpSync(join(FIXTURES, 'whisper-tiny-random'), modelDir, { recursive: true });
    graph = join(modelDir, 'onnx/decoder_model_merged.onnx');
    const outlined = outlineWeights(readFileSync(graph), 'decoder_model_merged.onnx_data');
    writeFileSync(graph, outlined.graph);
    writeFileSync(`${graph}_data`, outlined.data);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the external tensors of a merged decoder and none of a self-contained graph', async () => {
    const references = await externalDataReferences(graph);
    expect(references.length).to.be.greaterThan(0);
    expect(new Set(references.map((reference) => reference.location))).to.deep.equal(new Set(['decoder_model_merged.onnx_data']));
    const end = Math.max(...references.map((reference) => reference.offset + reference.length!));
    expect(end).to.equal(readFileSync(`${graph}_data`).length);
    expect(await externalDataReferences(join(modelDir, 'onnx/encoder_model.onnx'))).to.deep.equal([]);
  });

  it('refuses a graph cut short and bytes that are no ONNX model', async () => {
    const cut = join(dir, 'cut.onnx');
    writeFileSync(cut, readFileSync(join(modelDir, 'onnx/encoder_model.onnx')).subarray(0, 3000));
    expect(await rejection(externalDataReferences(cut))).to.be.instanceOf(OnnxFileError);
    const text = join(dir, 'text.onnx');
    writeFileSync(text, 'version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 1\n');
    expect(await rejection(externalDataReferences(text))).to.be.instanceOf(OnnxFileError);
  });

  it('passes a sound folder, and keeps its answer until a file changes', async () => {
    const check = new ModelFilesCheck();
    expect(await check.problem(dir, modelDir)).to.equal(undefined);
    writeFileSync(join(modelDir, 'config.json'), '{"architectures": [42]}');
    expect((await check.problem(dir, modelDir))?.problem).to.equal('has "architectures" that is not a list of names');
    writeFileSync(join(modelDir, 'config.json'), '{"model_type": "whisper", "id2label": {"0": null}}');
    // Same size and mtime as a file already checked would be kept; a changed one is read again.
    utimesSync(join(modelDir, 'config.json'), new Date(), new Date(Date.now() + 5000));
    expect((await check.problem(dir, modelDir))?.problem).to.equal('has an "id2label" that does not map ids to label names');
  });

  it('refuses external data kept outside the model folder', async () => {
    const outlined = outlineWeights(readFileSync(join(FIXTURES, 'whisper-tiny-random/onnx/encoder_model.onnx')), '../../elsewhere.bin');
    writeFileSync(join(modelDir, 'onnx/encoder_model.onnx'), outlined.graph);
    const problem = await new ModelFilesCheck().problem(dir, modelDir);
    expect(problem).to.deep.include({ file: 'm/onnx/encoder_model.onnx' });
    expect(problem?.problem).to.match(/outside its model folder/);
  });

  it('names a Piper voice config without the fields Piper reads', async () => {
    const voice = join(dir, 'voice');
    cpSync(join(FIXTURES, 'piper-random'), voice, { recursive: true });
    writeFileSync(join(voice, 'piper-random.onnx.json'), '{"audio": {}}');
    const problem = await new ModelFilesCheck().problem(dir, voice);
    expect(problem?.file).to.equal('voice/piper-random.onnx.json');
    expect(problem?.problem).to.match(/^is not a Piper voice config \(.*sample_rate/);
  });
});
