/**
 * Builds the web playground into dist/playground/ (what src/http/routes/playground-routes.ts
 * serves): the page's TypeScript and the client it imports as one ES module, the style sheet, and
 * the HTML. esbuild, because the page imports src/client (TypeScript, NodeNext `.js` specifiers)
 * and a browser needs one file it can load under a CSP without inline script.
 */
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src/playground');
const out = join(root, 'dist/playground');

export async function buildPlayground(): Promise<void> {
  await mkdir(out, { recursive: true });
  await build({
    entryPoints: [join(source, 'playground.ts'), join(source, 'playground.css')],
    outdir: out,
    bundle: true,
    format: 'esm',
    target: ['chrome110', 'firefox115', 'safari16'],
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    entryNames: '[name]',
  });
  await copyFile(join(source, 'index.html'), join(out, 'index.html'));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildPlayground();
}
