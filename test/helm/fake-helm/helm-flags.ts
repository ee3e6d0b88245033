/** Flags each fake command accepts; the value flags take an argument, the boolean ones may not. */
const BOOLEAN = [
  '--all',
  '--all-namespaces',
  '-A',
  '--reset-values',
  '--replace',
  '--create-namespace',
  '--wait',
  '--wait-for-jobs',
  '--keep-history',
  '--short',
];
const VALUE = ['--namespace', '-n', '--output', '-o', '--values', '-f', '--timeout', '--revision', '--max', '--kube-context', '--dry-run'];

export function flagKind(_version: string, _command: string, name: string): 'boolean' | 'value' | undefined {
  return BOOLEAN.includes(name) ? 'boolean' : VALUE.includes(name) ? 'value' : undefined;
}

export function checkHelmFlags(version: string, command: string, flags: readonly string[], fail: (message: string) => never): void {
  if (version.startsWith('v4') && command === 'list' && flags.includes('--all')) fail('unknown flag: --all');
}
