/**
 * `npm run pack:client`: the typed client as a package another project installs, with nothing of
 * the server in it. The repo's own package.json carries the server's dependencies (onnxruntime,
 * codecs, databases); the client needs none of them, so it ships as its own package of the same
 * name, whose only export is `./client`:
 *
 *   npm run pack:client                      # → dist/local-inference-server-<version>.tgz
 *   npm install /path/to/local-inference-server-<version>.tgz   (in the other project)
 *   import { InferenceClient } from 'local-inference-server/client';
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the client and packs it; resolves to the tarball's path. */
export async function packClient(): Promise<string> {
  await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.client.json')], { cwd: root });
  const { version, description, license } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Record<string, string | undefined>;
  const stage = join(root, 'dist/client-package');
  await rm(stage, { recursive: true, force: true });
  await mkdir(stage, { recursive: true });
  await cp(join(root, 'dist/src/client'), join(stage, 'client'), { recursive: true });
  const manifest = {
    name: 'local-inference-server',
    version,
    description: `Typed client of ${description ?? 'the local inference server'}`,
    ...(license ? { license } : {}),
    type: 'module',
    engines: { node: '>=22' },
    exports: { './client': { types: './client/index.d.ts', default: './client/index.js' }, './package.json': './package.json' },
    files: ['client/**/*.js', 'client/**/*.d.ts'],
  };
  await writeFile(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', join(root, 'dist')], { cwd: stage });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  return join(root, 'dist', packed!.filename);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  packClient().then((path) => console.log(path));
}
