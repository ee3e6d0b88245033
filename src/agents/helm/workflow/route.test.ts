import { describe, expect, it } from 'vitest';
import { parseHelmCommand } from './parse-command.ts';
import { classifyHelmRequest } from './route.ts';

describe('supervisor classification (spec keyword table) and the offline grammar', () => {
  it.each([
    ['list releases', 'query'],
    ['show me the status of web', 'query'],
    ['search nginx', 'query'],
    ['describe release web', 'query'],
    ['check web', 'query'],
    ['install webapp', 'workflow'],
    ['please upgrade web', 'workflow'],
    ['update web to 1.1.0', 'workflow'],
    ['delete web', 'workflow'],
    ['uninstall web', 'workflow'],
    ['rollback web', 'workflow'],
    ['deploy shop', 'workflow'],
    ['hello', 'query'],
  ])('%s → %s', (text, route) => {
    expect(classifyHelmRequest(text)).toBe(route);
  });

  it('understands the grammar as people say it (issue 31, item 10)', () => {
    expect(parseHelmCommand('roll back nginx to revision 1 in web')).toEqual({
      kind: 'rollback',
      release: 'nginx',
      namespace: 'web',
      revision: 1,
    });
    expect(parseHelmCommand('Roll back nginx in web to revision 2.')).toEqual({
      kind: 'rollback',
      release: 'nginx',
      namespace: 'web',
      revision: 2,
    });
    expect(parseHelmCommand('status of nginx in web')).toEqual({ kind: 'status', release: 'nginx', namespace: 'web' });
    for (const question of ['what charts are available?', 'which charts do you have', 'list charts', 'What charts?'])
      expect(parseHelmCommand(question)).toEqual({ kind: 'search', query: '' });
    expect(parseHelmCommand('what is the weather')).toBeUndefined();
  });

  it('parses the grammar', () => {
    expect(parseHelmCommand('list releases in prod')).toEqual({ kind: 'list', namespace: 'prod' });
    expect(parseHelmCommand('install demo/webapp as web in staging version 1.0.0 set replicaCount=3 image.tag=1.2')).toEqual({
      kind: 'install',
      chart: 'demo/webapp',
      release: 'web',
      namespace: 'staging',
      version: '1.0.0',
      values: { replicaCount: 3, image: { tag: 1.2 } },
    });
    expect(parseHelmCommand('upgrade web to version 1.1.0 set service.port=8080')).toEqual({
      kind: 'upgrade',
      release: 'web',
      namespace: 'default',
      version: '1.1.0',
      values: { service: { port: 8080 } },
    });
    expect(parseHelmCommand('rollback web to 2')).toEqual({ kind: 'rollback', release: 'web', namespace: 'default', revision: 2 });
    expect(parseHelmCommand('uninstall web')).toEqual({ kind: 'uninstall', release: 'web', namespace: 'default' });
    expect(parseHelmCommand('install')).toBeUndefined();
    expect(parseHelmCommand('install webapp as')).toBeUndefined();
  });
});
