/**
 * The playground on the fixture models only (a clone without `npm run test-models`): speech and
 * transcription still run end to end on the random-weight models, and live captions are not
 * offered without the server's voice activity detection model, with the reason on the page.
 * The full walk through every pane, with the real models when installed, is playground.slow.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { buildPlayground } from '../../scripts/build-playground.js';
import { servePlaygroundApp, type PlaygroundApp } from './playground-app.js';
import { CHROMIUM, expectText, openPlayground, TONE } from './playground-browser.js';

const NOT_INSTALLED_GROUP = 'Not installed — npm run download-models -- <id>';

describe('the playground in Chromium, on the fixture models only', function () {
  this.timeout(60_000);
  let served: PlaygroundApp;
  let browser: Browser;
  let page: Page;
  let scratch: string;
  let consoleErrors: string[] = [];

  before(async function () {
    if (!CHROMIUM) return this.skip(); // apt-get install chromium
    this.timeout(120_000);
    await buildPlayground();
    served = await servePlaygroundApp({ realModels: false });
    scratch = mkdtempSync(join(tmpdir(), 'lis-playground-fixtures-'));
    ({ browser, page, consoleErrors } = await openPlayground(served.baseUrl, scratch));
  });
  after(async () => {
    await browser?.close();
    await served?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('groups each picker: installed models first, the others under how to install them', async () => {
    const groups = (label: string) =>
      page
        .getByLabel(label, { exact: true })
        .locator('optgroup')
        .evaluateAll((found) => found.map((group) => [(group as HTMLOptGroupElement).label, [...group.children].map((option) => option.textContent)]));
    expect(await groups('Transcribe Model')).to.deep.equal([
      ['Installed', ['whisper-tiny-random']],
      [NOT_INSTALLED_GROUP, ['whisper-absent']],
    ]);
    const translate = await groups('Translate Model');
    expect(translate.map(([label]) => label)).to.deep.equal(['Installed', NOT_INSTALLED_GROUP]);
    expect(translate[1]?.[1]).to.deep.equal(['apertium-absent (apt-get install apertium apertium-absent-pair)']);
  });

  it('speaks with the fixture voice and transcribes with the fixture Whisper', async () => {
    expect(await page.getByLabel('Speak Model').inputValue()).to.equal('piper-random');
    await page.getByRole('button', { name: 'Speak', exact: true }).click();
    await expectText(page.locator('#speak-status'), /^Done: .* audio\/mpeg/, 30_000);
    expect(await page.getByRole('link', { name: 'Download speech' }).isVisible()).to.equal(true);
    expect(await page.getByLabel('Transcribe Model').inputValue()).to.equal('whisper-tiny-random');
    await page.getByLabel('Audio file to transcribe').setInputFiles(TONE);
    await page.getByRole('button', { name: 'Transcribe', exact: true }).click();
    await expectText(page.locator('#transcribe-status'), /^Transcribed /, 30_000);
    // Random weights on a tone decode to no speech, so the segment list may be empty; it is there,
    // and the error box is not (the real-model test checks segments and words).
    expect(await page.getByLabel('Transcript segments').count()).to.equal(1);
    expect(await page.locator('#transcribe-error').isHidden()).to.equal(true);
  });

  it('transcribes a file dropped on the drop zone', async () => {
    const wav = readFileSync(TONE).toString('base64');
    const dataTransfer = await page.evaluateHandle((base64) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], 'dropped.wav', { type: 'audio/wav' }));
      return transfer;
    }, wav);
    await page.locator('#transcribe-drop').dispatchEvent('drop', { dataTransfer });
    await expectText(page.locator('#transcribe-status'), /^Transcribed /, 30_000);
    expect(await page.locator('#transcribe-file-hint').textContent()).to.match(/^dropped\.wav/);
  });

  it('does not offer live captions without a voice activity detection model, and says why', async () => {
    expect(await page.getByRole('button', { name: 'Start live captions' }).isDisabled()).to.equal(true);
    expect(await page.locator('#transcribe-live-hint').textContent()).to.match(/voice activity detection model/);
  });

  it('logged no console errors', () => {
    expect(consoleErrors).to.deep.equal([]);
  });
});
