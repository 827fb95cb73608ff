/**
 * A model folder checked by the server before any ONNX session is made from it, so that a broken
 * install is a 503 naming the model, the file, what is wrong and the fix, never an onnxruntime abort:
 * - every file and folder can be read (as the server's user: "permission denied" is said as such);
 * - every `.onnx` file reads as an ONNX graph, and each external-data file its tensors name
 *   (`<file>.onnx_data`) exists inside the folder and holds every byte range they read (the
 *   installer's model-files-check.ts, which download-models runs on what it writes);
 * - every `.json` file parses, and the configs the engines read have the shapes they expect.
 * Every file of the folder is checked, not only the ones an engine will open (transformers.js
 * picks its files itself), except the ONNX graphs of dtypes the model does not load, so a
 * pruned variant does not refuse it.
 *
 * A folder whose files are unchanged since their last check (same paths, sizes and mtimes) is
 * not read again, so a model loaded again after an idle unload costs one directory walk.
 */
import { constants, type Dirent } from 'node:fs';
import * as fs from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { ModelFilesError } from '../errors.js';
import { DTYPE_SUFFIX, DTYPES } from './dtype.js';
import { checkExternalData, type FileProblem as GraphProblem } from './model-files-check.js';
import { parsePiperVoiceConfig } from './text-to-speech/piper-voice-config.js';

/** What the check asks of the file system; tests pass failing ones (EACCES as root). */
export interface FileAccess {
  readdir(path: string): Promise<Dirent[]>;
  stat(path: string): Promise<{ size: number; mtimeMs: number; isFile(): boolean; isDirectory(): boolean }>;
  /** Resolves when the server's user may read `path` (and list it, for a folder). */
  access(path: string, mode: number): Promise<void>;
}

const NODE_FS: FileAccess = {
  readdir: (path) => fs.readdir(path, { withFileTypes: true }),
  stat: (path) => fs.stat(path),
  access: (path, mode) => fs.access(path, mode),
};

/** A folder walk stops here: no model has this many files, a mistaken MODELS_DIR (/) might. */
const MAX_FILES = 10_000;
const MAX_DEPTH = 4;

/** One problem, with the file it is about relative to MODELS_DIR. */
export interface FolderProblem {
  file: string;
  problem: string;
  /** The fix when it is not "reinstall the model". */
  fix?: string;
}

interface ListedFile {
  /** Relative to the model folder, with `/`. */
  path: string;
  size: number;
  mtimeMs: number;
}

export class ModelFolderCheck {
  readonly #fs: FileAccess;
  /** Per model folder: the stamp of its files at their last check, and what that check found. */
  readonly #checked = new Map<string, { stamp: string; problem: FolderProblem | undefined }>();

  constructor(fileAccess: FileAccess = NODE_FS) {
    this.#fs = fileAccess;
  }

  /**
   * Throws a ModelFilesError naming `modelId`, the file and the fix when the folder cannot serve
   * the model; `reinstall` is the command that installs it again. `dtypes`: see `problem`.
   */
  async check(modelId: string, modelsDir: string, modelDir: string, reinstall: string, dtypes?: readonly string[]): Promise<void> {
    const problem = await this.problem(modelsDir, modelDir, dtypes);
    if (problem) throw new ModelFilesError(modelId, problem.file, problem.problem, problem.fix ?? `Reinstall it: ${reinstall}`);
  }

  /**
   * The first problem of the folder, or undefined when it is sound. With `dtypes` (the
   * transformers.js weight types the model loads), a graph of another dtype (`*_quantized.onnx`
   * for a fp32 model) is not read: a variant the model never opens, pruned or broken, does not
   * refuse it.
   */
  async problem(modelsDir: string, modelDir: string, dtypes?: readonly string[]): Promise<FolderProblem | undefined> {
    const listed = await this.#list(modelsDir, modelDir);
    if ('problem' in listed) return listed;
    const stamp = listed.map((file) => `${file.path}\0${file.size}\0${file.mtimeMs}`).join('\n');
    const key = `${modelDir}\0${dtypes?.join(',') ?? '*'}`;
    const cached = this.#checked.get(key);
    if (cached?.stamp === stamp) return cached.problem;
    const problem = await this.#inspect(modelsDir, modelDir, dtypes ? listed.filter((file) => opensGraph(file.path, dtypes)) : listed);
    this.#checked.set(key, { stamp, problem });
    return problem;
  }

  /**
   * Why `modelDir` reads as not installed when it cannot be read at all (a folder on its way
   * from MODELS_DIR, or its install marker, refused to the server's user); undefined when it is
   * simply absent.
   */
  async unreadable(modelsDir: string, modelDir: string, marker: string): Promise<FolderProblem | undefined> {
    return this.#firstRefused(modelsDir, [modelsDir, modelDir], join(modelDir, marker));
  }

  /** The first of `folders` (outermost first), then `file`, the server's user may not read; undefined at the first that is absent. */
  async #firstRefused(modelsDir: string, folders: readonly string[], file?: string): Promise<FolderProblem | undefined> {
    const paths = [...folders.map((path) => ({ path, mode: constants.R_OK | constants.X_OK })), ...(file ? [{ path: file, mode: constants.R_OK }] : [])];
    for (const { path, mode } of paths) {
      try {
        await this.#fs.access(path, mode);
      } catch (error) {
        return isPermissionError(error) ? permissionProblem(modelsDir, path) : undefined;
      }
    }
    return undefined;
  }

  async #list(modelsDir: string, modelDir: string): Promise<ListedFile[] | FolderProblem> {
    const files: ListedFile[] = [];
    const visit = async (folder: string, depth: number): Promise<FolderProblem | undefined> => {
      let entries: Dirent[];
      try {
        await this.#fs.access(folder, constants.R_OK | constants.X_OK);
        entries = await this.#fs.readdir(folder);
      } catch (error) {
        if (isPermissionError(error)) {
          // A folder above may be what refuses: name the outermost one.
          return (await this.#firstRefused(modelsDir, [modelsDir, modelDir])) ?? permissionProblem(modelsDir, folder);
        }
        // No folder at all: the engine that called the model installed has nothing here to check.
        if (folder === modelDir && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        return { file: shown(modelsDir, folder), problem: `cannot be read: ${errorText(error)}` };
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        // Hidden files are the installer's (the marker, a local manifest entry, partial downloads).
        if (entry.name.startsWith('.')) continue;
        const path = join(folder, entry.name);
        let stat: Awaited<ReturnType<FileAccess['stat']>>;
        try {
          stat = await this.#fs.stat(path);
        } catch (error) {
          if (isPermissionError(error)) return permissionProblem(modelsDir, path);
          // A dangling symbolic link: what it pointed to is gone.
          return { file: shown(modelsDir, path), problem: `cannot be read: ${errorText(error)}` };
        }
        if (stat.isDirectory()) {
          if (depth >= MAX_DEPTH) continue;
          const problem = await visit(path, depth + 1);
          if (problem) return problem;
        } else if (stat.isFile()) {
          if (files.length >= MAX_FILES) return { file: shown(modelsDir, modelDir), problem: `holds more than ${MAX_FILES} files`, fix: 'Check MODELS_DIR' };
          files.push({ path: relative(modelDir, path).split(sep).join('/'), size: stat.size, mtimeMs: stat.mtimeMs });
        }
      }
      return undefined;
    };
    const problem = await visit(modelDir, 0);
    return problem ?? files;
  }

  async #inspect(modelsDir: string, modelDir: string, files: readonly ListedFile[]): Promise<FolderProblem | undefined> {
    for (const file of files) {
      const path = join(modelDir, file.path);
      const where = shown(modelsDir, path);
      try {
        await this.#fs.access(path, constants.R_OK);
      } catch (error) {
        if (isPermissionError(error)) return permissionProblem(modelsDir, path);
        return { file: where, problem: `cannot be read: ${errorText(error)}` };
      }
      if (file.path.endsWith('.onnx')) {
        const problem = await onnxProblem(modelDir, file.path);
        if (problem) return { file: shown(modelsDir, join(modelDir, problem.file)), problem: problem.problem };
      } else if (file.path.endsWith('.json')) {
        const problem = await jsonProblem(path);
        if (problem) return { file: where, problem };
      } else if (file.path.endsWith('.onnx_data') && file.size === 0) {
        return { file: where, problem: 'is empty' };
      }
    }
    return undefined;
  }
}

/** Whether a model of `dtypes` opens `path`: anything but a `.onnx` graph whose dtype suffix (dtype.ts) is another's. */
function opensGraph(path: string, dtypes: readonly string[]): boolean {
  if (!path.endsWith('.onnx')) return true;
  const stem = path.slice(0, -'.onnx'.length);
  const dtype = DTYPES.find((one) => DTYPE_SUFFIX[one] !== '' && stem.endsWith(DTYPE_SUFFIX[one])) ?? 'fp32';
  return dtypes.includes(dtype);
}

/** The graph's problem, or one of a file it needs ({file, problem}, file relative to the model folder). */
async function onnxProblem(modelDir: string, graph: string): Promise<{ file: string; problem: string } | undefined> {
  const [first] = await checkExternalData(modelDir, graph);
  // An unsafe location is the graph's fault, and names no file of the folder.
  return first && { file: first.kind === 'unsafe' ? graph : first.file, problem: GRAPH_PROBLEMS[first.kind](first) };
}

const GRAPH_PROBLEMS: Readonly<Record<GraphProblem['kind'], (problem: GraphProblem) => string>> = {
  missing: ({ detail }) => `is missing (${detail})`,
  short: ({ detail }) => `is cut short (${detail})`,
  unsafe: ({ detail }) => `is refused: ${detail}`,
  unreadable: ({ detail }) => `is ${detail}: the download was cut short or the file is corrupt`,
};

/** Parses a JSON file and checks the shapes of the configs engines read; the problem, or undefined. */
async function jsonProblem(path: string): Promise<string | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await fs.readFile(path, 'utf8'));
  } catch (error) {
    if (isPermissionError(error)) return 'cannot be read: permission denied';
    return `is not valid JSON (${(error as Error).message})`;
  }
  const name = basename(path);
  const shape = JSON_SHAPES[name] ?? (name.endsWith('.onnx.json') ? piperVoiceShape : undefined);
  return shape?.(value);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const mustBeObject = (value: unknown) => (isObject(value) ? undefined : 'is not a JSON object');

/** transformers.js reads these fields of config.json without checking their types. */
function transformersConfigShape(value: unknown): string | undefined {
  if (!isObject(value)) return 'is not a JSON object';
  const { model_type: modelType, architectures, id2label, label2id } = value;
  if (modelType !== undefined && typeof modelType !== 'string') return 'has a model_type that is not a string';
  if (architectures !== undefined && !(Array.isArray(architectures) && architectures.every((one) => typeof one === 'string'))) {
    return 'has "architectures" that is not a list of names';
  }
  if (id2label !== undefined && !(isObject(id2label) && Object.values(id2label).every((label) => typeof label === 'string'))) {
    return 'has an "id2label" that does not map ids to label names';
  }
  if (label2id !== undefined && !(isObject(label2id) && Object.values(label2id).every((id) => Number.isInteger(id)))) {
    return 'has a "label2id" that does not map label names to ids';
  }
  return undefined;
}

function piperVoiceShape(value: unknown): string | undefined {
  try {
    parsePiperVoiceConfig(value, 'it');
    return undefined;
  } catch (error) {
    return `is not a Piper voice config (${(error as Error).message})`;
  }
}

const JSON_SHAPES: Readonly<Record<string, (value: unknown) => string | undefined>> = {
  'config.json': transformersConfigShape,
  'generation_config.json': mustBeObject,
  'preprocessor_config.json': mustBeObject,
  'tokenizer_config.json': mustBeObject,
  'special_tokens_map.json': mustBeObject,
  'tokenizer.json': (value) => (isObject(value) && isObject(value.model) ? undefined : 'is not a tokenizer (no "model" object)'),
};

function isPermissionError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EACCES' || code === 'EPERM';
}

function permissionProblem(modelsDir: string, path: string): FolderProblem {
  const folder = path === modelsDir ? 'the models folder (MODELS_DIR)' : shown(modelsDir, path);
  return {
    file: folder,
    problem: 'cannot be read: permission denied',
    fix: `Let the server's user read it (for example chmod -R a+rX on ${path === modelsDir ? 'MODELS_DIR' : 'that path'}, or chown it to that user)`,
  };
}

/** `path` relative to MODELS_DIR, as clients and operators see model files. */
function shown(modelsDir: string, path: string): string {
  return relative(modelsDir, path).split(sep).join('/') || '.';
}

function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'it is missing (a link to nowhere?)';
  return code ?? (error as Error).message;
}
