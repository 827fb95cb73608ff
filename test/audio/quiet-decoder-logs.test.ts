import { expect } from 'chai';
import { quietDecoderLogs } from '../../src/audio/quiet-decoder-logs.js';

describe('quietDecoderLogs', () => {
  it('drops per-frame decoder errors and keeps every other message', () => {
    const printed: unknown[][] = [];
    const target = { error: (...args: unknown[]) => void printed.push(args) };
    quietDecoderLogs(target);
    target.error('libopus -4 OPUS_INVALID_PACKET: The compressed data passed is corrupted');
    target.error('mpg123-decoder: MPG123_ERR_READER');
    target.error('@wasm-audio-decoders/flac: \n\tError: FLAC__STREAM_DECODER_ERROR_STATUS_LOST_SYNC');
    target.error('model failed', 42);
    expect(printed).to.deep.equal([['model failed', 42]]);
  });
});
