/** Manifest options of the `apertium` engine (TypeBox schema, checked at start-up). */
import { Type, type Static } from '@sinclair/typebox';

const DEFAULT_MODES_DIR = '/usr/share/apertium/modes';

/** Apertium's own names ("eng-spa", "spa-cat_valencia") and package names; nothing a shell would read. */
const ApertiumName = Type.String({ pattern: '^[A-Za-z0-9_@.-]+$' });

export const ApertiumOptions = Type.Object(
  {
    /** The mode name, e.g. "eng-spa": `<modesDir>/<pair>.mode`. */
    pair: ApertiumName,
    /** The Debian package that installs it; `apertium-<pair>` when absent. */
    package: Type.Optional(ApertiumName),
    /** Short codes of the pair's languages ("en", "es"). */
    source: ApertiumName,
    target: ApertiumName,
    modesDir: Type.String({ minLength: 1, default: DEFAULT_MODES_DIR }),
    /** Keep Apertium's `*`, `@` and `#` marks on unknown words (see apertium-engine.ts). */
    markUnknown: Type.Boolean({ default: false }),
    timeoutMs: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  },
  { additionalProperties: false },
);

export type ApertiumOptions = Static<typeof ApertiumOptions>;

export function debianPackage(options: ApertiumOptions): string {
  return options.package ?? `apertium-${options.pair.replace(/_.*$/, '')}`;
}
