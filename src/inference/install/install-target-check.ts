/**
 * Where an install may write. MODELS_DIR is by default the folder that also holds the manifest
 * (models/models.json, models/catalog/), so a model id is a path in it: `hf:<anyone>/catalog` or
 * `--id models.json` would replace the catalogue or the manifest and leave a server that cannot
 * start. Every install folder is checked here before anything is fetched or written.
 */
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { INSTALL_MARKER } from '../engine.js';
import { CATALOG_DIR } from '../manifest.js';
import { InstallError } from './install-errors.js';

/** Names of the models folder that are not models (compared case-insensitively: macOS and Windows file systems). */
const RESERVED = new Set([CATALOG_DIR, 'models.json', 'readme.md', 'license', 'notice', 'node_modules']);

/** Why `folder` cannot be a model folder's name, or undefined when it can. */
function reservedFolderReason(folder: string): string | undefined {
  if (folder === '' || /[/\\]/.test(folder)) return 'a model folder is one name, without path separators';
  if (folder.startsWith('.')) return 'names starting with "." are the installer\'s own (.partial, .installed.json…)';
  if (/\p{Cc}/u.test(folder)) return 'it holds control characters';
  if (RESERVED.has(folder.toLowerCase())) return `"${folder}" is a file or folder of the models folder itself`;
  return undefined;
}

interface TargetContext {
  modelsDir: string;
  /** The manifest file (MODELS_MANIFEST); its catalogue folder lies beside it. */
  manifestPath: string;
  force: boolean;
}

/**
 * Refuses a folder that is reserved, that would hold the manifest or its catalogue, or that
 * exists and is not a model install (no .installed.json: a folder of the user's, a file). `--force`
 * lets an install replace a folder without a marker (a hand-made copy), never the rest.
 */
export async function checkInstallFolder(id: string, folder: string, context: TargetContext): Promise<void> {
  const reason = reservedFolderReason(folder);
  if (reason) throw new InstallError(`${id}: cannot install into ${join(context.modelsDir, folder)}: ${reason}; pick another id`);
  const target = resolve(context.modelsDir, folder);
  const manifest = resolve(context.manifestPath);
  for (const kept of [manifest, join(dirname(manifest), CATALOG_DIR)]) {
    const inside = relative(target, kept);
    const outside = inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside);
    if (!outside) {
      throw new InstallError(`${id}: cannot install into ${target}: it would replace ${kept}; pick another id`);
    }
  }
  const found = await stat(target).catch(() => undefined);
  if (!found) return;
  if (!found.isDirectory()) throw new InstallError(`${id}: ${target} exists and is not a folder; move it away first`);
  const marked = await stat(join(target, INSTALL_MARKER)).catch(() => undefined);
  if (!marked && !context.force) {
    throw new InstallError(`${id}: ${target} exists and is not a model install (no ${INSTALL_MARKER}); move it away, or pass --force to replace it`);
  }
}
