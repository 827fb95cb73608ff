/** Validates answers against OpenAI's own OpenAPI spec (the vendored subset), by schema name. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';

const SPEC_ID = 'openai-openapi.json';
let ajv: Ajv2020 | undefined;

function validator(): Ajv2020 {
  if (!ajv) {
    const spec = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/openai-openapi/openapi.subset.json'), 'utf8'));
    // The spec's own keywords (x-oaiMeta, format unixtime …) are annotations here.
    ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ ...spec, $id: SPEC_ID });
  }
  return ajv;
}

/** Fails the test, naming every mismatch, unless `value` is a valid `components.schemas[name]`. */
export function expectOpenAiShape(name: string, value: unknown): void {
  const validate = validator().getSchema(`${SPEC_ID}#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name} in the spec`);
  const ok = validate(value);
  expect(ok, `${name}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(value).slice(0, 500)}`).to.equal(true);
}
