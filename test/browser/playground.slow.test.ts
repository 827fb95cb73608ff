/**
 * The playground in a real browser: playwright-core drives Debian's chromium (skipped when absent:
 * `apt-get install chromium`) against the real server on a loopback port, with the fixture models
 * and the real test models when installed. Every control is found by its accessible name, the
 * microphone is Chromium's fake capture device playing a speech WAV, the page must log no console
 * errors, and each pane is photographed into test-results/playground/ (git-ignored).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, Locator, Page } from 'playwright-core';
import { buildPlayground } from '../../scripts/build-playground.js';
import { TEST_API_KEY } from '../helpers/test-app.js';
import { servePlaygroundApp, type PlaygroundApp } from './playground-app.js';
import { CHROMIUM, DESKTOP, expectText, openPlayground, PHONE, SCREENSHOTS, SPEECH_CLIP } from './playground-browser.js';

const NOT_INSTALLED_GROUP = 'Not installed — npm run download-models -- <id>';

describe('the playground in Chromium', function () {
  this.timeout(60_000);
  let served: PlaygroundApp;
  let browser: Browser;
  let page: Page;
  let scratch: string;
  let consoleErrors: string[] = [];
  const real = (id: string) => served.realModels.includes(id);
  const pane = (id: string) => page.locator(`#${id}`);

  before(async function () {
    if (!CHROMIUM) return this.skip(); // apt-get install chromium
    this.timeout(120_000);
    await buildPlayground();
    served = await servePlaygroundApp();
    scratch = mkdtempSync(join(tmpdir(), 'lis-playground-browser-'));
    mkdirSync(SCREENSHOTS, { recursive: true });
    ({ browser, page, consoleErrors } = await openPlayground(served.baseUrl, scratch));
  });

  after(async () => {
    await browser?.close();
    await served?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('is served with a strict CSP and no outside sources, and keeps the key in localStorage', async () => {
    const response = await fetch(`${served.baseUrl}/playground`);
    expect(response.status).to.equal(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp)
      .to.include("default-src 'none'")
      .and.include("script-src 'self'")
      .and.not.match(/https?:|\*|unsafe-inline|unsafe-eval/);
    expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(await response.text()).to.not.match(/(src|href)="(https?:)?\/\//);
    await page.reload();
    expect(await page.getByLabel('API key').inputValue()).to.equal(TEST_API_KEY);
    await expectText(page.locator('#key-status'), /Connected/);
  });

  it('lists installed models first in every picker, the others in a group saying how to install them', async () => {
    for (const label of ['Speak Model', 'Transcribe Model', 'Translate Model', 'Classify Model']) {
      const picker = page.getByLabel(label, { exact: true });
      expect(await picker.locator('option').count(), label).to.be.greaterThan(0);
      const groups = await picker.locator('optgroup').evaluateAll((found) => found.map((group) => (group as HTMLOptGroupElement).label));
      expect(groups[0], label).to.equal('Installed');
      expect(groups.slice(1), label).to.deep.equal(groups.length > 1 ? [NOT_INSTALLED_GROUP] : []);
    }
  });

  it('Speak: plays the MP3 while it streams, and offers it as a download', async () => {
    const speak = pane('speak');
    await page.getByLabel('Speak Model').selectOption(real('piper-en_US-joe-medium') ? 'piper-en_US-joe-medium' : 'piper-random');
    await page.getByLabel('Text to speak').fill('Hello from the playground. This sentence streams while the next one is made.');
    await page.getByLabel('Speak Speed').fill('1.2');
    // Every text the status line shows, in order: playback must start before the stream ends.
    await page.locator('#speak-status').evaluate((status) => {
      const seen: string[] = ((window as unknown as { speakStatuses: string[] }).speakStatuses = []);
      new MutationObserver(() => seen.push(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
    });
    await page.getByRole('button', { name: 'Speak', exact: true }).click();
    await expectText(page.locator('#speak-status'), /^Done: .* audio\/mpeg/, 30_000);
    const statuses = await page.evaluate(() => (window as unknown as { speakStatuses: string[] }).speakStatuses);
    expect(
      statuses.findIndex((text) => text.startsWith('Playing while streaming')),
      statuses.join(' | '),
    ).to.be.within(0, statuses.length - 2);
    const audio = page.getByLabel('Speech audio');
    expect(await audio.evaluate((element: HTMLAudioElement) => element.src)).to.match(/^blob:/);
    // Played from the MediaSource the chunks were appended to (the browser may start a moment after the last chunk).
    await audio.evaluate(
      (element: HTMLAudioElement) => element.currentTime > 0 || new Promise((resolve) => element.addEventListener('timeupdate', resolve, { once: true })),
    );
    expect(await audio.evaluate((element: HTMLAudioElement) => element.error?.message ?? null)).to.equal(null);
    const download = await downloadOf(speak.getByRole('link', { name: 'Download speech' }));
    expect(download.name).to.equal('speech.mp3');
    expect(download.bytes.length).to.be.greaterThan(1_000);
    await speak.screenshot({ path: join(SCREENSHOTS, 'speak-desktop-light.png') });
  });

  it('Speak: WAV plays too, and a server error is shown, not swallowed', async () => {
    const speak = pane('speak');
    await page.getByLabel('Speak Format').selectOption('wav');
    await page.getByRole('button', { name: 'Speak', exact: true }).click();
    await expectText(page.locator('#speak-status'), /^Done: .* audio\/wav/, 30_000);
    expect((await downloadOf(speak.getByRole('link', { name: 'Download speech' }))).name).to.equal('speech.wav');
    await page.getByLabel('Text to speak').fill('   ');
    await page.getByRole('button', { name: 'Speak', exact: true }).click();
    await expectText(page.locator('#speak-error'), /"input".*\(HTTP 400 /);
    takeExpectedErrors(/status of 400/);
    await page.getByLabel('Text to speak').fill('Hello from the playground. This sentence streams while the next one is made.');
    await page.getByLabel('Speak Format').selectOption('mp3');
    await page.getByRole('button', { name: 'Speak', exact: true }).click();
    await expectText(page.locator('#speak-status'), /^Done: /, 30_000);
    expect(await page.locator('#speak-error').isHidden(), 'the next answer clears the error').to.equal(true);
  });

  it('Transcribe: records from the microphone (MediaRecorder) and transcribes the recording', async () => {
    const transcribe = pane('transcribe');
    await page.getByLabel('Transcribe Model').selectOption(real('whisper-tiny.en') ? 'whisper-tiny.en' : 'whisper-tiny-random');
    await page.getByRole('button', { name: 'Record from microphone' }).click();
    await expectText(page.locator('#transcribe-status'), /^Recording/);
    await page.waitForTimeout(4_000);
    await page.getByRole('button', { name: 'Stop recording' }).click();
    await expectText(page.locator('#transcribe-status'), /^Transcribed /, 45_000);
    expect(await page.getByLabel('Recorded audio').evaluate((audio: HTMLAudioElement) => audio.src)).to.match(/^blob:/);
    const text = (await transcribe.locator('#transcribe-text').textContent()) ?? '';
    expect(text).to.not.equal('');
    if (real('whisper-tiny.en') && existsSync(SPEECH_CLIP)) expect(text).to.match(/americans|fellow|country/i);
  });

  it('Transcribe: an uploaded clip, with segment timestamps and SRT/VTT downloads', async () => {
    const transcribe = pane('transcribe');
    await page.getByLabel('Transcribe Model').selectOption(real('whisper-tiny.en') ? 'whisper-tiny.en' : 'whisper-tiny-random');
    await page.getByLabel('Audio file to transcribe').setInputFiles(SPEECH_CLIP);
    await page.getByLabel('Word timestamps').check();
    await page.getByRole('button', { name: 'Transcribe', exact: true }).click();
    await expectText(page.locator('#transcribe-status'), /^Transcribed /, 45_000);
    const text = await transcribe.locator('#transcribe-text').textContent();
    if (real('whisper-tiny.en') && existsSync(SPEECH_CLIP)) expect(text).to.match(/ask not what your country can do for you/i);
    expect(await page.getByLabel('Transcript segments').locator('li').count()).to.be.greaterThan(0);
    // Real Whisper exports carry cross-attention outputs, so the words come with their times.
    if (real('whisper-tiny.en')) expect(await page.getByLabel(/^Words from /).count()).to.be.greaterThan(0);
    const srt = await downloadOf(transcribe.getByRole('link', { name: 'Download SRT' }));
    expect(srt.name).to.equal('transcript.srt');
    expect(srt.bytes.toString()).to.match(/^1\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\n/);
    const vtt = await downloadOf(transcribe.getByRole('link', { name: 'Download VTT' }));
    expect(vtt.bytes.toString()).to.match(/^WEBVTT\n\n\d\d:\d\d:\d\d\.\d{3} --> /);
    await page.getByLabel('Word timestamps').uncheck();
    await transcribe.screenshot({ path: join(SCREENSHOTS, 'transcribe-desktop-light.png') });
  });

  it('Transcribe: live captions over the realtime WebSocket', async function () {
    if (!real('silero-vad-v6')) {
      // Not offered without the server's VAD model, and the page says why.
      expect(await page.getByRole('button', { name: 'Start live captions' }).isDisabled()).to.equal(true);
      expect(await page.locator('#transcribe-live-hint').textContent()).to.match(/voice activity detection/);
    }
    if (!real('whisper-tiny.en') || !real('silero-vad-v6')) return this.skip(); // npm run test-models
    this.timeout(60_000);
    const transcribe = pane('transcribe');
    await page.getByRole('button', { name: 'Start live captions' }).click();
    await expectText(page.locator('#transcribe-status'), /Listening|Hearing/, 15_000);
    const captions = page.getByLabel('Live captions', { exact: true });
    await captions.locator('p:not(.partial)').first().waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Stop live captions' }).click();
    await expectText(page.locator('#transcribe-status'), /Live captions stopped/, 15_000);
    expect(await captions.textContent()).to.match(/[a-z]/i);
    await transcribe.screenshot({ path: join(SCREENSHOTS, 'transcribe-live-desktop-light.png') });
  });

  it('Translate: language pickers from the model, and the translation', async () => {
    const translate = pane('translate');
    await page.getByLabel('Translate Model').selectOption('nllb-random');
    const sources = await page.getByLabel('Translate From').locator('option').count();
    expect(sources).to.be.greaterThan(10);
    await page.getByLabel('Translate To').selectOption('fr');
    await page.getByLabel('Translate Model').selectOption('marian-en-es-random');
    expect(await page.getByLabel('Translate From').locator('option').allTextContents()).to.deep.equal(['English (en)']);
    expect(await page.getByLabel('Translate To').inputValue()).to.equal('es');
    await page.getByLabel('Text to translate').fill('Good morning, how are you?');
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expectText(page.locator('#translate-status'), /^Translated in /, 30_000);
    expect(await translate.locator('#translate-result').isVisible()).to.equal(true);
    if (real('apertium-eng-spa')) {
      await page.getByLabel('Translate Model').selectOption('apertium-eng-spa');
      await page.getByLabel('Text to translate').fill('The weather is lovely today, so we are going to the beach.');
      await page.getByRole('button', { name: 'Translate', exact: true }).click();
      await expectText(page.getByLabel('Translation', { exact: true }), /playa/i, 30_000);
    }
    await translate.screenshot({ path: join(SCREENSHOTS, 'translate-desktop-light.png') });
  });

  it('Classify: confidences as bars, and candidate labels for a zero-shot model', async () => {
    const classify = pane('classify');
    const bars = page.getByLabel('Classification', { exact: true }).locator('li');
    await page.getByLabel('Classify Model').selectOption('nli-random');
    await page.getByLabel('Text to classify').fill('The striker scored twice in the final.');
    await page.getByLabel('Candidate labels').fill('sports, politics, cooking');
    await page.getByRole('button', { name: 'Classify', exact: true }).click();
    await expectText(page.locator('#classify-status'), /^Classified in /, 30_000);
    expect((await bars.allTextContents()).map((text) => text.replace(/[\d.]+%$/, '')).sort()).to.deep.equal(['cooking', 'politics', 'sports']);
    if (real('minilm-sentiment')) {
      await page.getByLabel('Classify Model').selectOption('minilm-sentiment');
      await page.getByLabel('Candidate labels').fill('');
      await page.getByLabel('Text to classify').fill('I love this phone, the battery is wonderful.');
      await page.getByRole('button', { name: 'Classify', exact: true }).click();
      await expectText(bars.first(), /^positive\d/, 30_000);
    }
    await classify.screenshot({ path: join(SCREENSHOTS, 'classify-desktop-light.png') });
  });

  it('Batches: runs a JSONL file of requests, shows progress, offers the results', async () => {
    const lines = ['What a lovely day', 'This is dreadful'].map((query, i) =>
      JSON.stringify({ custom_id: `line-${i}`, method: 'POST', url: '/v1/classifications', body: { model: 'bert-sentiment-random', query } }),
    );
    await page
      .getByLabel('JSONL file of requests')
      .setInputFiles({ name: 'requests.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(lines.join('\n')) });
    await page.getByRole('button', { name: 'Start batch' }).click();
    await expectText(page.locator('#batches-status'), /^completed: 2 done, 0 failed of 2\./, 30_000);
    expect(await page.getByRole('link', { name: 'Download results' }).isVisible()).to.equal(true);
    expect(await page.getByLabel('Batch progress').evaluate((bar) => (bar as HTMLProgressElement).value)).to.equal(2);
    await pane('batches').screenshot({ path: join(SCREENSHOTS, 'batches-desktop-light.png') });
  });

  it('Users: create, edit, delete, and a validation error shown', async () => {
    const users = pane('users');
    const table = page.getByRole('table', { name: 'Users' });
    for (const [name, email] of [
      ['Ada Lovelace', 'ada@example.org'],
      ['Alan Turing', 'alan@example.org'],
    ]) {
      await page.getByLabel('User name').fill(name!);
      await page.getByLabel('User email').fill(email!);
      await page.getByRole('button', { name: 'Create user' }).click();
      await expectText(page.locator('#users-status'), new RegExp(`^Created ${name}`));
    }
    await page.getByRole('button', { name: 'Edit user Alan Turing' }).click();
    expect(await page.getByLabel('User email').inputValue()).to.equal('alan@example.org');
    await page.getByLabel('User name').fill('Alan M. Turing');
    await page.getByRole('button', { name: 'Save user' }).click();
    await expectText(page.locator('#users-status'), /^Saved Alan M\. Turing/);
    expect(await table.textContent()).to.include('Alan M. Turing');
    await page.getByRole('button', { name: 'Delete user Ada Lovelace' }).click();
    await expectText(page.locator('#users-status'), /^Deleted Ada Lovelace/);
    expect(await table.textContent()).to.not.include('Ada Lovelace');
    await page.getByLabel('User name').fill('Grace Hopper');
    await page.getByLabel('User email').fill('not-an-email');
    await page.getByRole('button', { name: 'Create user' }).click();
    await expectText(page.locator('#users-error'), /email/i);
    takeExpectedErrors(/status of 400/);
    await page.getByLabel('User email').fill('grace@example.org');
    await page.getByRole('button', { name: 'Create user' }).click();
    await expectText(page.locator('#users-status'), /^Created Grace Hopper/);
    await users.screenshot({ path: join(SCREENSHOTS, 'users-desktop-light.png') });
  });

  it('works at phone width and in dark mode (screenshots)', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    // The README's picture (docs/playground.png is a copy): the header, Speak and Transcribe.
    await page.screenshot({
      path: join(SCREENSHOTS, 'readme.png'),
      fullPage: true,
      clip: { x: 0, y: 0, width: DESKTOP.width, height: await page.locator('#translate').evaluate((element) => element.getBoundingClientRect().top - 8) },
    });
    await page.screenshot({ path: join(SCREENSHOTS, 'page-desktop-light.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(SCREENSHOTS, 'page-desktop-dark.png'), fullPage: true });
    for (const id of ['speak', 'transcribe', 'translate', 'classify', 'users'])
      await pane(id).screenshot({ path: join(SCREENSHOTS, `${id}-desktop-dark.png`) });
    await page.setViewportSize(PHONE);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, 'no horizontal scrolling at phone width').to.be.at.most(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'page-phone-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: join(SCREENSHOTS, 'page-phone-light.png'), fullPage: true });
    for (const id of ['speak', 'transcribe', 'translate', 'classify', 'users']) await pane(id).screenshot({ path: join(SCREENSHOTS, `${id}-phone-light.png`) });
    await page.setViewportSize(DESKTOP);
  });

  it('logged no console errors but the server errors it was asked to show', () => {
    expect(consoleErrors).to.deep.equal([]);
  });

  /** Removes the browser's "Failed to load resource" lines for errors a step provoked on purpose. */
  function takeExpectedErrors(pattern: RegExp): void {
    const before = consoleErrors.length;
    const kept = consoleErrors.filter((line) => !pattern.test(line));
    expect(before - kept.length, `expected a console line matching ${pattern}`).to.be.greaterThan(0);
    consoleErrors.splice(0, consoleErrors.length, ...kept);
  }

  async function downloadOf(link: Locator): Promise<{ name: string; bytes: Buffer }> {
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const path = join(scratch, download.suggestedFilename());
    await download.saveAs(path);
    return { name: download.suggestedFilename(), bytes: readFileSync(path) };
  }
});
