import { describe, expect, it } from 'vitest';
import type { InterpreterTurn } from '../../core/model/interpreter-rules.ts';
import { extractRunbookLinks, parseSuggestions } from '../../core/text/index.ts';
import { troubleshootInterpreter } from './intents.ts';

type Step = InterpreterTurn['steps'][number];
const rules = troubleshootInterpreter();
const oneHost: Step = { toolName: 'list_hosts', input: {}, output: { hosts: [{ name: 'web-1' }] }, isError: false };
const linux: Step = {
  toolName: 'detect_os',
  input: { host: 'web-1' },
  output: { os: 'linux', output: 'Linux web-1 6.1.0' },
  isError: false,
};
const history = (items: unknown[] = []): Step => ({
  toolName: 'get_feedback_history',
  input: { host: 'web-1' },
  output: { items },
  isError: false,
});
const ran = (command: string, output = 'ok\n', exit = 0): Step => ({
  toolName: 'suggest_ssh_command',
  input: { host: 'web-1', command },
  output: { status: 'completed', command, exit_status: exit, output, error_keywords: [] },
  isError: false,
});

function next(userText: string, steps: Step[] = []) {
  return rules.next({ userText, steps, history: [], tools: [], system: '' });
}

describe('troubleshoot interpreter rules', () => {
  it('"run CMD" lists the hosts, proposes exactly that command, then reports its output with chips the rules understand', () => {
    expect(next('run systemctl status nginx --no-pager')).toEqual({ toolCalls: [{ toolName: 'list_hosts', input: {} }] });
    expect(next('run systemctl status nginx --no-pager', [oneHost])).toEqual({
      toolCalls: [
        {
          toolName: 'suggest_ssh_command',
          input: { command: 'systemctl status nginx --no-pager', explanation: 'Requested by the person.' },
        },
      ],
    });
    const done = next('run uptime', [oneHost, ran('uptime', ' 10:00:00 up 3 days\n')]) as { text: string };
    expect(done.text).toContain('`uptime` → exit 0');
    for (const chip of parseSuggestions(done.text).suggestions) expect(next(chip)).toBeDefined();
  });

  it('refuses to propose commands on a host whose key is not pinned, and says how to pin it', () => {
    const unpinned: Step = {
      toolName: 'list_hosts',
      input: {},
      output: { hosts: [{ name: 'web-1', host_key: 'not confirmed' }] },
      isError: false,
    };
    for (const text of ['run uptime', 'disk full on web-1']) {
      const answer = next(text, [unpinned]) as { text: string; toolCalls?: unknown };
      expect(answer.toolCalls).toBeUndefined();
      expect(answer.text).toContain('not pinned');
      expect(answer.text).toContain('opsgate hosts trust web-1');
    }
  });

  it('every suggestion chip of a runbook answer is understood: it leads to the remediation and to "run" chips', () => {
    const done = next('disk full', [oneHost, linux, history(), ...['df -h', 'df -i', 'du', 'journalctl', 'find'].map((c) => ran(c))]) as {
      text: string;
    };
    const chips = parseSuggestions(done.text).suggestions;
    expect(chips).toContain('Vacuum the journal');
    for (const chip of chips) {
      const answer = next(chip) as { text: string };
      expect(answer.text).toContain('Remove what the investigation found');
      expect(extractRunbookLinks(answer.text)).toContain('docs/runbooks/linux-disk-full.md');
    }
    const runChips = parseSuggestions((next('Vacuum the journal') as { text: string }).text).suggestions;
    expect(runChips).toContain('run journalctl --vacuum-size=500M');
    expect(next(runChips[0]!)).toEqual({ toolCalls: [{ toolName: 'list_hosts', input: {} }] });
  });

  it('AR-18 symptom words go Identify (list_hosts) → Verify (detect_os) → Investigate (feedback history) → runbook steps', () => {
    expect(next('high cpu on web-1')).toMatchObject({ toolCalls: [{ toolName: 'list_hosts' }] });
    expect(next('high cpu on web-1', [oneHost])).toMatchObject({ toolCalls: [{ toolName: 'detect_os', input: { host: 'web-1' } }] });
    expect(next('high cpu on web-1', [oneHost, linux])).toMatchObject({ toolCalls: [{ toolName: 'get_feedback_history' }] });
    expect(next('high cpu on web-1', [oneHost, linux, history()])).toMatchObject({
      toolCalls: [{ toolName: 'suggest_ssh_command', input: { command: 'uptime' } }],
    });
    expect(next('high cpu on web-1', [oneHost, linux, history(), ran('uptime')])).toMatchObject({
      toolCalls: [{ toolName: 'suggest_ssh_command', input: { command: 'ps aux --sort=-%cpu | head -15' } }],
    });
  });

  it.each([
    ['disk full', 'linux-disk-full'],
    ['the server has high cpu', 'linux-high-cpu'],
    ['memory pressure, OOM kills', 'linux-memory-pressure'],
    ['the api service is down', 'linux-service-down'],
    ['port 8080 in use', 'linux-port-in-use'],
    ['dns does not resolve', 'linux-dns'],
    ['certificate expired', 'linux-certificate-expiry'],
  ])('symptom "%s" picks runbook %s', (text, file) => {
    let steps: Step[] = [oneHost, linux, history()];
    let action = next(text, steps);
    while (action && 'toolCalls' in action) {
      const call = action.toolCalls[0]!;
      steps = [...steps, ran(String(call.input.command))];
      action = next(text, steps);
    }
    expect((action as { text: string }).text).toContain(`[Open runbook](docs/runbooks/${file}.md)`);
  });

  it('Windows hosts get the Windows runbook', () => {
    const windows: Step = {
      toolName: 'detect_os',
      input: {},
      output: { os: 'windows', output: 'Microsoft Windows [Version 10.0]' },
      isError: false,
    };
    expect(next('disk full', [oneHost, windows, history()])).toMatchObject({
      toolCalls: [{ toolName: 'suggest_ssh_command', input: { command: 'Get-Volume' } }],
    });
  });

  it('AR-10 commands that got a thumbs down on this host are skipped', () => {
    const avoid = history([{ command: 'df -h', rating: 'thumbs_down', exit_status: 0 }]);
    expect(next('disk full', [oneHost, linux, avoid])).toMatchObject({
      toolCalls: [{ toolName: 'suggest_ssh_command', input: { command: 'df -i' } }],
    });
  });

  it('AR-12 a still-running command is read with read_output before anything else', () => {
    const running: Step = {
      toolName: 'suggest_ssh_command',
      input: { command: 'df -h' },
      output: { status: 'still_running', host: 'web-1', output_so_far: '' },
      isError: false,
    };
    expect(next('disk full', [oneHost, linux, history(), running])).toEqual({
      toolCalls: [{ toolName: 'read_output', input: { host: 'web-1' } }],
      text: 'The command is still running; reading its output.',
    });
  });

  it('AR-13 with several hosts and none named, the agent asks which one; a Custom answer picks it, Skip stops', () => {
    const twoHosts: Step = { toolName: 'list_hosts', input: {}, output: { hosts: [{ name: 'web-1' }, { name: 'db-1' }] }, isError: false };
    expect(next('disk full', [twoHosts])).toMatchObject({ toolCalls: [{ toolName: 'request_human_input' }] });
    const custom: Step = { toolName: 'request_human_input', input: {}, output: { answer: 'custom', text: 'db-1' }, isError: false };
    expect(next('disk full', [twoHosts, custom])).toMatchObject({ toolCalls: [{ toolName: 'detect_os', input: { host: 'db-1' } }] });
    const skip: Step = { toolName: 'request_human_input', input: {}, output: { answer: 'skip' }, isError: false };
    expect((next('disk full', [twoHosts, skip]) as { text: string }).text).toMatch(/Stopped/);
    expect(next('disk full on db-1', [twoHosts])).toMatchObject({ toolCalls: [{ toolName: 'detect_os', input: { host: 'db-1' } }] });
  });

  it('AR-20 AR-21 the final answer carries the runbook link section and a 2-4 item [SUGGESTIONS] block', () => {
    const steps = [
      oneHost,
      linux,
      history(),
      ran('date -u'),
      ran('ls -l /etc/ssl/certs | head -20'),
      ran('ls -l /etc/letsencrypt/live 2>/dev/null', '', 2),
    ];
    steps.push(ran('openssl x509 -enddate -noout -in /etc/ssl/certs/ssl-cert-snakeoil.pem', 'notAfter=Jan  1 00:00:00 2020 GMT\n'));
    const answer = (next('certificate expiry', steps) as { text: string }).text;
    expect(extractRunbookLinks(answer)).toEqual(['docs/runbooks/linux-certificate-expiry.md']);
    expect(answer).toContain('📖 Runbook Links');
    const parsed = parseSuggestions(answer);
    expect(parsed.suggestions.length).toBeGreaterThanOrEqual(2);
    expect(parsed.suggestions.length).toBeLessThanOrEqual(4);
  });

  it('a command rejected with "stop" ends the runbook: nothing more is proposed; another reason goes on to the next step', () => {
    const first = next('disk full', [oneHost, linux, history()]);
    expect('toolCalls' in first!).toBe(true);
    const rejected = (reason: string): Step => ({
      toolName: 'suggest_ssh_command',
      input: { host: 'web-1', command: 'df -h' },
      output: { denied: true, reason: `john_doe rejected this call. Reason: ${reason}` },
      isError: true,
    });
    const stopped = next('disk full', [oneHost, linux, history(), rejected('stop')]);
    expect(stopped).toEqual({ text: expect.stringMatching(/^Stopped: nothing more will be proposed/) });
    expect(next('disk full', [oneHost, linux, history(), rejected('Enough, I will look myself')])).not.toHaveProperty('toolCalls');
    expect(next('disk full', [oneHost, linux, history(), rejected('not this one')])).toHaveProperty('toolCalls');
  });

  it('does not understand unrelated text (the interpreter falls back to its generic help)', () => {
    expect(next('tell me a joke')).toBeUndefined();
  });
});
