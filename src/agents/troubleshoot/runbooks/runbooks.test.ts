import { describe, expect, it } from 'vitest';
import { loadRunbooks, parseRunbook, topicFor } from './runbooks.ts';

describe('runbooks', () => {
  const runbooks = loadRunbooks();
  const topics = ['disk-full', 'high-cpu', 'memory-pressure', 'service-down', 'port-in-use', 'dns', 'certificate-expiry'];

  it('ships Linux and Windows runbooks for every topic, each with numbered steps and suggestions', () => {
    for (const topic of topics) {
      for (const os of ['linux', 'windows']) {
        const runbook = runbooks.get(`${os}-${topic}`);
        expect(runbook, `${os}-${topic}`).toBeDefined();
        expect(runbook!.steps.length).toBeGreaterThanOrEqual(3);
        expect(runbook!.suggestions.length).toBeGreaterThanOrEqual(2);
        expect(runbook!.path).toBe(`docs/runbooks/${os}-${topic}.md`);
      }
    }
    expect(runbooks.size).toBe(14);
  });

  it('parses the first code span of each numbered step as the exact command', () => {
    const parsed = parseRunbook(
      '# T\n\n## Steps\n\n1. Usage: `df -h`\n2. No command here\n3. Inodes `df -i` then `x`\n\n## Remediation\n\n1. Fix: `rm -rf /tmp/x`\n',
      'linux-disk-full.md',
    );
    expect(parsed.steps).toEqual([
      { title: 'Usage', command: 'df -h' },
      { title: 'Inodes', command: 'df -i' },
    ]);
  });

  it('maps symptom words to topics', () => {
    expect(topicFor('No space left on device')).toBe('disk-full');
    expect(topicFor('bind: address already in use')).toBe('port-in-use');
    expect(topicFor('the nginx service is down')).toBe('service-down');
    expect(topicFor('hello')).toBeUndefined();
  });
});
