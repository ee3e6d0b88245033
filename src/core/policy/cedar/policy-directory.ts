import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { PolicyErrors } from './policy-errors.ts';

/** The policy shipped in the repository; `OPSGATE_POLICY_DIR` replaces it. */
export const DEFAULT_POLICY_DIR = fileURLToPath(new URL('./default/', import.meta.url));
const SCHEMA_FILE = fileURLToPath(new URL('./schema.cedarschema', import.meta.url));

/** One policy of a directory, named by its `@id` annotation. */
export interface LoadedPolicy {
  readonly id: string;
  readonly file: string;
  readonly effect: 'permit' | 'forbid';
  readonly text: string;
  /** The `@reason("…")` annotation, said to people when this policy decides. */
  readonly reason?: string;
}

/** A validated policy set: every policy has a unique `@id` and type-checks against opsgate's schema. */
export interface PolicySet {
  readonly dir: string;
  readonly schema: string;
  readonly policies: ReadonlyMap<string, LoadedPolicy>;
}

/** opsgate's Cedar schema: the entities, actions and contexts it sends. */
export function policySchema(): string {
  return readFileSync(SCHEMA_FILE, 'utf8');
}

function describe(errors: ReadonlyArray<{ readonly message: string; readonly help?: string | null }>): string {
  return errors.map((error) => (error.help ? `${error.message} (${error.help})` : error.message)).join('; ');
}

function policiesOfFile(dir: string, file: string): LoadedPolicy[] {
  const text = readFileSync(join(dir, file), 'utf8');
  const parts = cedar.policySetTextToParts(text);
  if (parts.type === 'failure') throw PolicyErrors.POLICY_INVALID({ dir, detail: `${file}: ${describe(parts.errors)}` });
  if (parts.policy_templates.length > 0)
    throw PolicyErrors.POLICY_INVALID({ dir, detail: `${file}: templates are not supported; write static policies` });
  return parts.policies.map((policyText) => {
    const json = cedar.policyToJson(policyText);
    if (json.type === 'failure') throw PolicyErrors.POLICY_INVALID({ dir, detail: `${file}: ${describe(json.errors)}` });
    const id = json.json.annotations?.id;
    if (!id)
      throw PolicyErrors.POLICY_INVALID({
        dir,
        detail: `${file}: every policy needs an @id("…") annotation; this one has none: ${policyText.slice(0, 80)}`,
      });
    const reason = json.json.annotations?.reason;
    return { id, file, effect: json.json.effect, text: policyText, ...(reason ? { reason } : {}) };
  });
}

/**
 * Reads every `*.cedar` file of `dir` and validates the set against opsgate's schema (strict mode).
 * Throws `POLICY_DIR_NOT_FOUND` or `POLICY_INVALID` naming the file and the problem; never falls
 * back to the default silently.
 */
export function loadPolicyDirectory(dir: string = DEFAULT_POLICY_DIR): PolicySet {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw PolicyErrors.POLICY_DIR_NOT_FOUND({ dir });
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cedar'))
    .sort();
  if (files.length === 0) throw PolicyErrors.POLICY_DIR_NOT_FOUND({ dir });
  const policies = new Map<string, LoadedPolicy>();
  for (const file of files) {
    for (const policy of policiesOfFile(dir, file)) {
      const earlier = policies.get(policy.id);
      if (earlier) throw PolicyErrors.POLICY_INVALID({ dir, detail: `@id("${policy.id}") is used twice (${earlier.file} and ${file})` });
      policies.set(policy.id, policy);
    }
  }
  const schema = policySchema();
  const validation = cedar.validate({
    schema,
    policies: { staticPolicies: Object.fromEntries([...policies].map(([id, policy]) => [id, policy.text])) },
    validationSettings: { mode: 'strict' },
  });
  if (validation.type === 'failure') throw PolicyErrors.POLICY_INVALID({ dir, detail: describe(validation.errors) });
  if (validation.validationErrors.length > 0) {
    const detail = validation.validationErrors.map((problem) => `policy "${problem.policyId}": ${problem.error.message}`).join('; ');
    throw PolicyErrors.POLICY_INVALID({ dir, detail });
  }
  return { dir, schema, policies };
}
