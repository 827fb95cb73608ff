/**
 * The model id of an `hf:` install. `--id` is the user's word: an id another model has is refused.
 * Without it the id is derived (hub-repo.ts `defaultId`) and, when another model already has it,
 * replaced by a free one: the owner in front (`onnx-community-whisper-tiny.en`), then a number
 * (`…-2`), said in one line. A model "has" an id when its id or shared folder equals it in any
 * letter case (as a case-insensitive file system compares folders), or the manifest names an alias
 * so; reinstalling the same repo (and voice) under its own id is not a clash. The names the models
 * folder keeps for itself are not derived around: install-target-check.ts refuses them. A Piper
 * voice the manifest has at the same revision is that model (`shippedEntryOfVoice`), not a new id.
 */
import { installFolder, type Manifest, type ManifestEntry } from '../manifest.js';
import { defaultId, type HubRepoRef } from './hub-repo.js';
import { InstallError } from './install-errors.js';
import { plainVoiceName } from './piper-repo.js';

export interface ChosenId {
  id: string;
  /** Why the derived id was not taken: "model id "x" is taken by …; installing … as "y"". */
  note?: string;
}

/** Numbered ids tried after the owner-prefixed one before giving up. */
const MAX_SUFFIX = 99;

const VALID_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * `chosenInRun`: ids given to earlier `hf:` arguments of the same run, with their repo, so two
 * repos of one name (`test-org/minilm`, `other-org/minilm`) install side by side.
 */
export function chooseHubModelId(
  arg: string,
  ref: HubRepoRef,
  manifest: Manifest,
  explicit: string | undefined,
  chosenInRun: ReadonlyMap<string, string>,
): ChosenId {
  if (explicit !== undefined) {
    checkValid(arg, explicit);
    const by = takenBy(explicit, ref, manifest, chosenInRun);
    if (by?.alias) throw new InstallError(`${arg}: model id "${explicit}" is an alias of the manifest (it names a ${by.alias} model); pass --id <another id>`);
    if (by) throw new InstallError(`${arg}: model id "${explicit}" is already taken by ${by.what}; pass --id <another id>`);
    return { id: explicit };
  }
  const base = defaultId(ref);
  checkValid(arg, base);
  const first = takenBy(base, ref, manifest, chosenInRun);
  if (!first) return { id: base };
  const owned = `${(ref.repo.split('/')[0] as string).toLowerCase()}-${base}`;
  for (let n = 1; n <= MAX_SUFFIX; n += 1) {
    const candidate = n === 1 ? owned : `${owned}-${n}`;
    if (!takenBy(candidate, ref, manifest, chosenInRun)) {
      return { id: candidate, note: `model id "${base}" is taken by ${first.what}; installing ${arg} as "${candidate}" (--id picks another)` };
    }
  }
  throw new InstallError(`${arg}: model id "${base}" is taken by ${first.what}, and so are ${owned} to ${owned}-${MAX_SUFFIX}; pass --id <another id>`);
}

function checkValid(arg: string, id: string): void {
  if (!VALID_ID.test(id)) throw new InstallError(`${arg}: "${id}" is not a valid model id ([A-Za-z0-9._-]+); pass --id`);
}

/** Who has `id` already, or undefined when it is free or is this repo's (and voice's) own earlier install. */
function takenBy(id: string, ref: HubRepoRef, manifest: Manifest, chosenInRun: ReadonlyMap<string, string>): { what: string; alias?: string } | undefined {
  const same = (other: string) => other.toLowerCase() === id.toLowerCase();
  const alias = Object.entries(manifest.aliases ?? {}).find(([name]) => same(name));
  if (alias) return { what: `an alias of the manifest (it names a ${alias[1].task} model)`, alias: alias[1].task };
  const inRun = [...chosenInRun].find(([other]) => same(other));
  if (inRun) return { what: `hf:${inRun[1]}, installed by this run` };
  const entry = manifest.models.find((model) => same(model.id) || same(installFolder(model)));
  if (!entry) return undefined;
  const local = manifest.localIds?.includes(entry.id) === true;
  const ours = sameModel(entry, ref);
  if (local && ours) return undefined;
  if (local) return { what: `hf:${repoOf(entry)}` };
  // The catalogue's own entry of this voice (rhasspy's, pinned there): worth knowing before a second copy is fetched.
  if (ours && ref.voice !== undefined) return { what: `the shipped manifest's entry of this voice (npm run download-models -- ${entry.id} installs that one)` };
  return { what: 'a model of the shipped manifest' };
}

/**
 * The manifest's own entry of the Piper voice `ref` names, at the same revision (the catalogue's
 * `piper-<key>` of rhasspy/piper-voices): that model is installed under its id rather than a second
 * copy of the same files under another. A transformers repo is not matched: `hf:` picks its own dtype.
 */
export function shippedEntryOfVoice(ref: HubRepoRef, manifest: Manifest): ManifestEntry | undefined {
  if (ref.voice === undefined) return undefined;
  return manifest.models.find(
    (entry) =>
      !manifest.localIds?.includes(entry.id) && entry.source?.type === 'huggingface' && entry.source.revision === ref.revision && sameModel(entry, ref),
  );
}

/** Whether the install `entry` came from the repo (and the voice) `ref` names. */
function sameModel(entry: ManifestEntry, ref: HubRepoRef): boolean {
  if (repoOf(entry) !== ref.repo) return false;
  if (ref.voice === undefined || entry.source?.type !== 'huggingface') return true;
  const voice = plainVoiceName(ref.voice.replace(/\.onnx$/, ''));
  return entry.source.files.some(
    (file) => file.path.endsWith('.onnx') && (plainVoiceName(file.path) === `${voice}.onnx` || plainVoiceName(file.path).endsWith(`/${voice}.onnx`)),
  );
}

function repoOf(entry: ManifestEntry): string | undefined {
  return entry.source?.type === 'huggingface' ? entry.source.repo : undefined;
}
