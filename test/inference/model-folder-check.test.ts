import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelFolderCheck } from '../../src/inference/model-folder-check.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { outlineWeights } from '../helpers/onnx-outline.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/models');

describe('model folder check before a load (model-folder-check.ts)', () => {
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

  it('names external weights cut short or missing, with the graph that needs them', async () => {
    const check = new ModelFolderCheck();
    const data = `${graph}_data`;
    writeFileSync(data, readFileSync(data).subarray(0, 1000));
    expect(await check.problem(dir, modelDir)).to.deep.include({ file: 'm/onnx/decoder_model_merged.onnx_data' });
    expect((await check.problem(dir, modelDir))?.problem).to.match(/^is cut short \(needed by onnx\/decoder_model_merged\.onnx: \d+ bytes, has 1000\)$/);
    rmSync(data);
    expect((await check.problem(dir, modelDir))?.problem).to.match(/^is missing \(needed by onnx\/decoder_model_merged\.onnx/);
  });

  it('names a graph cut short and a Git LFS pointer in place of a graph', async () => {
    const encoder = join(modelDir, 'onnx/encoder_model.onnx');
    writeFileSync(encoder, readFileSync(encoder).subarray(0, 3000));
    const cut = await new ModelFolderCheck().problem(dir, modelDir);
    expect(cut?.file).to.equal('m/onnx/encoder_model.onnx');
    expect(cut?.problem).to.match(/^is not a readable ONNX graph .*: the download was cut short or the file is corrupt$/);
    writeFileSync(encoder, 'version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 1\n');
    expect((await new ModelFolderCheck().problem(dir, modelDir))?.file).to.equal('m/onnx/encoder_model.onnx');
  });

  it('passes a sound folder, and keeps its answer until a file changes', async () => {
    const check = new ModelFolderCheck();
    expect(await check.problem(dir, modelDir)).to.equal(undefined);
    writeFileSync(join(modelDir, 'config.json'), '{"architectures": [42]}');
    expect((await check.problem(dir, modelDir))?.problem).to.equal('has "architectures" that is not a list of names');
    writeFileSync(join(modelDir, 'config.json'), '{"model_type": "whisper", "id2label": {"0": null}}');
    // Same size and mtime as a file already checked would be kept; a changed one is read again.
    utimesSync(join(modelDir, 'config.json'), new Date(), new Date(Date.now() + 5000));
    expect((await check.problem(dir, modelDir))?.problem).to.equal('has an "id2label" that does not map ids to label names');
  });

  it('reads only the graphs of the dtypes the model loads, when it says which', async () => {
    // A pruned q8 variant: its graph is there, its weights are not.
    const original = readFileSync(join(FIXTURES, 'whisper-tiny-random/onnx/decoder_model_merged.onnx'));
    writeFileSync(join(modelDir, 'onnx/decoder_model_merged_quantized.onnx'), outlineWeights(original, 'decoder_model_merged_quantized.onnx_data').graph);
    const check = new ModelFolderCheck();
    expect(await check.problem(dir, modelDir, ['fp32'])).to.equal(undefined);
    expect((await check.problem(dir, modelDir, ['q8']))?.file).to.equal('m/onnx/decoder_model_merged_quantized.onnx_data');
    expect((await check.problem(dir, modelDir))?.file, 'every graph without dtypes').to.equal('m/onnx/decoder_model_merged_quantized.onnx_data');
  });

  it('refuses external data kept outside the model folder', async () => {
    const outlined = outlineWeights(readFileSync(join(FIXTURES, 'whisper-tiny-random/onnx/encoder_model.onnx')), '../../elsewhere.bin');
    writeFileSync(join(modelDir, 'onnx/encoder_model.onnx'), outlined.graph);
    const problem = await new ModelFolderCheck().problem(dir, modelDir);
    expect(problem?.file).to.equal('m/onnx/encoder_model.onnx');
    expect(problem?.problem).to.match(/^is refused: onnx\/encoder_model\.onnx names external data outside the model folder$/);
  });

  it('names a Piper voice config without the fields Piper reads', async () => {
    const voice = join(dir, 'voice');
    cpSync(join(FIXTURES, 'piper-random'), voice, { recursive: true });
    writeFileSync(join(voice, 'piper-random.onnx.json'), '{"audio": {}}');
    const problem = await new ModelFolderCheck().problem(dir, voice);
    expect(problem?.file).to.equal('voice/piper-random.onnx.json');
    expect(problem?.problem).to.match(/^is not a Piper voice config \(.*sample_rate/);
  });
});
