import type { ServerCheck } from '../types.ts';

/**
 * `kubectl apply --server-side --dry-run=server --validate=strict`: every object goes to the API
 * server as an apply patch with `dryRun=All` and `fieldValidation=Strict`, so the server decodes it
 * strictly (unknown and duplicate fields), defaults it and runs admission, and stores nothing.
 * `--force-conflicts` because Helm owns the fields; this field manager never writes.
 */
export function serverCheckArgs(file: string, namespace: string): string[] {
  return [
    'apply',
    '--server-side',
    '--dry-run=server',
    '--validate=strict',
    '--force-conflicts',
    '--field-manager',
    'opsgate-plan-check',
    '--namespace',
    namespace,
    '--filename',
    file,
    '--output',
    'name',
  ];
}

const STRICT = /strict decoding error: (.*)$/;
const WHICH =
  /(?:error when (?:creating|applying patch|patching|retrieving current configuration of)[^:]*:\s*)?(?:([A-Za-z]+) in version "[^"]*" cannot be handled as a [A-Za-z]+|failed to create typed patch object \(([^)]*)\))/;
const NO_KIND = /no matches for kind "([^"]+)" in version "([^"]+)"/;
const NAMESPACE_MISSING = /namespaces "([^"]+)" not found/;
const FORBIDDEN = /is forbidden: User "[^"]*" cannot (\w+) resource "([^"]+)"/;

/**
 * Reads kubectl's stderr (it goes on past a refused object and reports each on its own line, exit
 * 1). Anything it cannot place is "unchecked" with kubectl's last line, never a pass.
 */
export function parseServerCheck(_stdout: string, stderr: string): ServerCheck {
  const invalid: string[] = [];
  const unchecked = new Set<string>();
  for (const line of stderr.split('\n').map((text) => text.trim())) {
    if (!line || /^Warning:/i.test(line)) continue;
    const strict = STRICT.exec(line);
    if (strict) {
      const which = WHICH.exec(line);
      invalid.push(`${which?.[1] ?? which?.[2] ?? 'an object'}: ${strict[1]}`);
      continue;
    }
    const noKind = NO_KIND.exec(line);
    if (noKind) {
      unchecked.add(`${noKind[1]} (${noKind[2]}) objects: the kind is not served yet (its CRD is installed by this change)`);
      continue;
    }
    const namespace = NAMESPACE_MISSING.exec(line);
    if (namespace) {
      unchecked.add(`the objects in namespace ${namespace[1]}: it does not exist yet (this change creates it)`);
      continue;
    }
    const forbidden = FORBIDDEN.exec(line);
    if (forbidden) {
      unchecked.add(`${forbidden[2]}: this identity may not ${forbidden[1]} them, even in a dry run (Helm will need to)`);
      continue;
    }
    unchecked.add(`the objects kubectl stopped at: ${line.replace(/^error: /i, '')}`);
  }
  return { invalid, unchecked: [...unchecked] };
}
