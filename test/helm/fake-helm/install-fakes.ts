import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type FakeHelmVersion = 'v3' | 'v4';

/** The `helm version --short` each fake answers with (the newest releases `helm/helm` was read at). */
export const FAKE_HELM_VERSIONS: Record<FakeHelmVersion, string> = { v3: 'v3.21.4+g2e3a0c9', v4: 'v4.2.4+g9b5f4a1' };

export interface FakeHelm {
  readonly dir: string;
  readonly helmPath: string;
  readonly kubectlPath: string;
  /** The simulated cluster's SQLite file (open it with `SimulatedCluster` to assert or inject faults). */
  readonly statePath: string;
  readonly logPath: string;
}

/**
 * Writes `helm` and `kubectl` executables into a fresh folder, bound to one cluster state and one
 * Helm version, so that a test can hand their paths to the CLI backend like real binaries.
 */
export function installFakeHelm(version: FakeHelmVersion): FakeHelm {
  const dir = mkdtempSync(join(tmpdir(), `opsgate-fake-helm-${version}-`));
  const statePath = join(dir, 'cluster.db');
  const logPath = join(dir, 'argv.log');
  const here = new URL('.', import.meta.url).pathname;
  const script = (file: string) =>
    [
      '#!/bin/sh',
      `export FAKE_HELM_STATE='${statePath}' FAKE_HELM_VERSION='${FAKE_HELM_VERSIONS[version]}' FAKE_HELM_LOG='${logPath}'`,
      `exec '${process.execPath}' --no-warnings '${join(here, file)}' "$@"`,
      '',
    ].join('\n');
  const helmPath = join(dir, 'helm');
  const kubectlPath = join(dir, 'kubectl');
  writeFileSync(helmPath, script('fake-helm.ts'));
  writeFileSync(kubectlPath, script('fake-kubectl.ts'));
  chmodSync(helmPath, 0o755);
  chmodSync(kubectlPath, 0o755);
  return { dir, helmPath, kubectlPath, statePath, logPath };
}
