import { expect } from 'chai';
import { formatBytes, formatDuration, formatProgress, ProgressBar } from '../../../src/inference/install/progress-bar.js';

describe('download progress bar', () => {
  it('formats sizes and durations for people', () => {
    expect(formatBytes(999)).to.equal('999 B');
    expect(formatBytes(23_200_850)).to.equal('23.2 MB');
    expect(formatDuration(59.4)).to.equal('59s');
    expect(formatDuration(125)).to.equal('2m05s');
    expect(formatDuration(Number.POSITIVE_INFINITY)).to.equal('?');
  });

  it('shows bar, percent, bytes, rate and ETA, counting only this run for the rate', () => {
    const line = formatProgress({ label: 'm/onnx/x.onnx', doneBytes: 60_000_000, totalBytes: 100_000_000, resumedBytes: 40_000_000, elapsedMs: 10_000 });
    expect(line).to.equal('[##############----------]  60%  60.0 MB / 100.0 MB  2.0 MB/s  ETA 20s  m/onnx/x.onnx');
  });

  it('shows bytes and rate when the total is unknown', () => {
    expect(formatProgress({ label: 'f', doneBytes: 5_000, resumedBytes: 0, elapsedMs: 1_000 })).to.equal('5.0 kB  5.0 kB/s  f');
  });

  it('redraws one line in place on a terminal, at most every 100 ms', () => {
    let out = '';
    let now = 0;
    const bar = new ProgressBar({ isTTY: true, write: (chunk: string) => (out += chunk) }, 'f', { now: () => now });
    bar.start(0, 1000);
    bar.update(100);
    now = 50;
    bar.update(200);
    now = 200;
    bar.update(1000);
    bar.finish();
    expect(out.match(/\r/g)).to.have.length(3);
    expect(out).to.match(/100%.*\n$/);
  });

  it('writes plain lines when stderr is not a terminal', () => {
    let out = '';
    let now = 0;
    const bar = new ProgressBar({ isTTY: false, write: (chunk: string) => (out += chunk) }, 'f', { now: () => now });
    bar.start(500, 1000);
    now = 1000;
    bar.update(600);
    now = 6000;
    bar.update(900);
    now = 8000;
    bar.update(1000);
    bar.finish();
    expect(out).not.to.include('\r');
    expect(out.split('\n').filter(Boolean)).to.deep.equal([
      'downloading f, 1.0 kB (resuming at 500 B)',
      '[######################--]  90%  900 B / 1.0 kB  67 B/s  ETA 2s  f',
      '[########################] 100%  1.0 kB / 1.0 kB  63 B/s  ETA 0s  f',
    ]);
  });
});
