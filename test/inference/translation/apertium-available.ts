/** Apertium tests need the Debian packages; CI installs them (scripts/test-models/apertium.sh). */
import { existsSync } from 'node:fs';

export const ENG_SPA_MODE = '/usr/share/apertium/modes/eng-spa.mode';

export function skipWithoutApertium(context: Mocha.Context): void {
  if (!existsSync(ENG_SPA_MODE)) {
    console.warn(`    (skipped: ${ENG_SPA_MODE} not found; run: apt-get install apertium apertium-eng-spa)`);
    context.skip();
  }
}
