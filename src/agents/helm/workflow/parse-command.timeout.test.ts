import { describe, expect, it } from 'vitest';
import { parseHelmCommand, parseTimeout } from './parse-command.ts';

describe('the grammar takes a Helm --timeout per change (issue 30 N8)', () => {
  it('reads seconds and Go durations in whole seconds', () => {
    expect(parseTimeout('900')).toBe(900);
    expect(parseTimeout('900s')).toBe(900);
    expect(parseTimeout('15m')).toBe(900);
    expect(parseTimeout('1h30m')).toBe(5400);
    expect(parseTimeout('')).toBeUndefined();
    expect(parseTimeout('1.5h')).toBeUndefined();
    expect(parseTimeout('soon')).toBeUndefined();
  });

  it('on install, upgrade, rollback and uninstall, in any position', () => {
    expect(parseHelmCommand('install webapp as web timeout 15m set replicaCount=2')).toMatchObject({
      kind: 'install',
      timeoutSeconds: 900,
      values: { replicaCount: 2 },
    });
    expect(parseHelmCommand('upgrade web timeout 20m to version 1.1.0')).toMatchObject({ version: '1.1.0', timeoutSeconds: 1200 });
    expect(parseHelmCommand('rollback web to 1 timeout 600')).toMatchObject({ revision: 1, timeoutSeconds: 600 });
    expect(parseHelmCommand('uninstall web timeout 10m')).toMatchObject({ kind: 'uninstall', timeoutSeconds: 600 });
    expect(parseHelmCommand('uninstall web')).not.toHaveProperty('timeoutSeconds');
    expect(parseHelmCommand('uninstall web timeout later')).toBeUndefined();
  });
});
