/**
 * Debian's chromium (headless, through playwright-core) on the playground of a served app, with
 * the fake microphone playing a speech WAV, and every console error the page logs collected.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { encodeWav } from '../../src/audio/encode-wav.js';
import { AUDIO_FIXTURES, REPO_ROOT, SPEECH_DIR } from '../audio/audio-test-helpers.js';
import { TEST_API_KEY } from '../helpers/test-app.js';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
export const SCREENSHOTS = join(REPO_ROOT, 'test-results/playground');
/** Real speech shared by the team (absent on a clean clone: a tone is used, and text checks are skipped). */
export const SPEECH_CLIP = join(SPEECH_DIR, 'en_jfk.wav');
export const TONE = join(AUDIO_FIXTURES, 'tone-22k05-stereo-24bit.wav');
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1100, height: 900 };

export interface OpenPlayground {
  browser: Browser;
  page: Page;
  /** What the page logged as errors (a step that provokes a server error takes its own out). */
  consoleErrors: string[];
}

/** Opens `${baseUrl}/playground` at desktop size, light, and enters the test key. */
export async function openPlayground(baseUrl: string, scratch: string): Promise<OpenPlayground> {
  // Chromium's fake microphone plays a 16-bit WAV in a loop: the jfk speech clip.
  const microphone = join(scratch, 'microphone.wav');
  const audio = await decodeAudio(readFileSync(SPEECH_CLIP), { sampleRate: 16_000, maxSeconds: 60 });
  writeFileSync(microphone, encodeWav(audio));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // playwright adds its own fresh --user-data-dir per launch.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${microphone}`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true, colorScheme: 'light' });
  await context.grantPermissions(['microphone'], { origin: baseUrl });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${message.text()} ${message.location().url}`);
  });
  page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.stack ?? error.message}`));
  await page.goto(`${baseUrl}/playground`);
  await page.getByLabel('API key').fill(TEST_API_KEY);
  await page.getByRole('button', { name: 'Use key' }).click();
  await expectText(page.locator('#key-status'), /Connected: \d+ models? installed/);
  return { browser, page, consoleErrors };
}

/** Waits until the element's text matches (playwright-core has no `expect`). */
export async function expectText(locator: Locator, pattern: RegExp, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    last = ((await locator.textContent({ timeout: Math.max(1, deadline - Date.now()) }).catch(() => '')) ?? '').trim();
    if (pattern.test(last)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`expected ${pattern} but the text was "${last}"`);
}
