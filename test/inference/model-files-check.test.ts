import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkModelFiles, externalDataPath, onnxExternalData } from '../../src/inference/model-files-check.js';
import { tinyOnnx } from '../helpers/tiny-onnx.js';

describe('model files check (external data of ONNX graphs)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-files-'));
    mkdirSync(join(dir, 'onnx'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads each external file and the furthest byte its tensors read, in the main graph and in If branches', async () => {
    const graph = tinyOnnx(
      [
        { location: 'model.onnx_data', offset: 0, length: 100 },
        { location: 'model.onnx_data', offset: 100, length: 28 },
      ],
      [{ location: 'branch.bin', dims: [2, 3] }],
    );
    writeFileSync(join(dir, 'onnx/model.onnx'), graph);
    expect(await onnxExternalData(join(dir, 'onnx/model.onnx'))).to.have.deep.members([
      { location: 'model.onnx_data', minBytes: 128 },
      { location: 'branch.bin', minBytes: 24 },
    ]);
  });

  it('names a missing and a short external file, and a location outside the folder', async () => {
    writeFileSync(
      join(dir, 'onnx/model.onnx'),
      tinyOnnx([
        { location: 'model.onnx_data', length: 128 },
        { location: 'short.bin', length: 10 },
      ]),
    );
    writeFileSync(join(dir, 'onnx/short.bin'), Buffer.alloc(5));
    writeFileSync(join(dir, 'onnx/escape.onnx'), tinyOnnx([{ location: '../../etc/passwd', length: 1 }]));
    writeFileSync(join(dir, 'config.json'), '{}');
    const problems = await checkModelFiles(dir, ['config.json', 'tokenizer.json', 'onnx/model.onnx', 'onnx/escape.onnx']);
    expect(problems).to.deep.equal([
      { file: 'tokenizer.json', kind: 'missing', detail: 'not in the folder' },
      { file: 'onnx/model.onnx_data', kind: 'missing', detail: 'needed by onnx/model.onnx (128 bytes)' },
      { file: 'onnx/short.bin', kind: 'short', detail: 'needed by onnx/model.onnx: 10 bytes, has 5' },
      { file: '../../etc/passwd', kind: 'unsafe', detail: 'onnx/escape.onnx names external data outside the model folder' },
    ]);
    writeFileSync(join(dir, 'onnx/model.onnx_data'), Buffer.alloc(128));
    writeFileSync(join(dir, 'onnx/short.bin'), Buffer.alloc(10));
    expect(await checkModelFiles(dir, ['config.json', 'onnx/model.onnx'])).to.deep.equal([]);
  });

  it('reports a file that is not a graph as unreadable, and a self-contained graph as needing nothing', async () => {
    writeFileSync(join(dir, 'onnx/cut.onnx'), tinyOnnx([{ location: 'x', length: 1 }]).subarray(0, 20));
    writeFileSync(join(dir, 'onnx/whole.onnx'), tinyOnnx([]));
    const problems = await checkModelFiles(dir, ['onnx/cut.onnx', 'onnx/whole.onnx']);
    expect(problems.map((problem) => [problem.file, problem.kind])).to.deep.equal([['onnx/cut.onnx', 'unreadable']]);
  });

  it('keeps external data locations inside the model folder', () => {
    expect(externalDataPath('onnx/model.onnx', 'model.onnx_data')).to.equal('onnx/model.onnx_data');
    expect(externalDataPath('onnx/model.onnx', '../weights.bin')).to.equal('weights.bin');
    for (const location of ['../../x', '/etc/passwd', 'a\\b', '', '.', '..', 'x/', 'a\u0000b'])
      expect(externalDataPath('onnx/model.onnx', location), location).to.equal(undefined);
  });
});
