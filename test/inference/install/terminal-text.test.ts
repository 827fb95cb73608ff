import { expect } from 'chai';
import { oneLine, stripControls, terminalSafe } from '../../../src/inference/install/terminal-text.js';

describe('terminal-safe text of download-models', () => {
  it('drops CSI, OSC, DCS and lone escapes, C0/C1 controls and bidi overrides, keeping newlines and tabs', () => {
    expect(stripControls('a\u001b[31mred\u001b[0m b')).to.equal('ared b');
    expect(stripControls('\u001b]0;new title\u0007title\u001b]8;;http://x\u001b\\link')).to.equal('titlelink');
    expect(stripControls('\u001bPq#0;2;0;0;0\u001b\\dcs \u001bc reset \u009b2J')).to.equal('dcs  reset ');
    expect(stripControls('evil\u202e\u2066txt\u0000\u0008\r\u007f\tok\n')).to.equal('eviltxt\tok\n');
  });

  it('folds a message into one line', () => {
    expect(oneLine('tar: bad\n  header\n')).to.equal('tar: bad header');
  });

  it("keeps the progress bar's own redraw on a terminal, cleaning the line inside it", () => {
    const written: string[] = [];
    const stream = terminalSafe({ isTTY: true, write: (chunk: string) => written.push(chunk) });
    stream.write('\rmodel/\u001b[2Jx.onnx 50%\u001b[K');
    stream.write('plain \u001b[1mline\n');
    expect(written).to.deep.equal(['\rmodel/x.onnx 50%\u001b[K', 'plain line\n']);
    expect(stream.isTTY).to.equal(true);
  });
});
