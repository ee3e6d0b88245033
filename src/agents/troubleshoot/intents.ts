import type { InterpreterAction, InterpreterRules, InterpreterTurn } from '../../core/model/interpreter-rules.ts';
import { appendRunbookLinks } from '../../core/text/index.ts';
import { loadRunbooks, type Runbook, type RunbookOs, topicFor } from './runbooks/runbooks.ts';

type Step = InterpreterTurn['steps'][number];

const RUN = /^\s*run\s*:?\s+(.+)$/is;

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function firstLines(text: unknown, lines = 3): string {
  if (typeof text !== 'string' || text.trim() === '') return '(no output)';
  // Lines joined with a middle dot: a symbol fonts may lack (⏎) showed as a box.
  const kept = text
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, lines)
    .join(' · ');
  return kept.length > 200 ? `${kept.slice(0, 200)}…` : kept;
}

/** One line per command run in this turn: `cmd` → exit N: first lines. */
function summarise(steps: readonly Step[]): string[] {
  return steps
    .filter((s) => s.toolName === 'suggest_ssh_command' || s.toolName === 'read_output')
    .map((s) => {
      const out = record(s.output);
      const command = String(record(s.input).command ?? out.command ?? '');
      if (s.isError || out.blocked) return `- \`${command}\` → not run: ${String(out.reason ?? out.error ?? 'error')}`;
      if (out.status === 'still_running') return `- \`${command}\` → still running: ${firstLines(out.output_so_far)}`;
      const flags = Array.isArray(out.error_keywords) && out.error_keywords.length > 0 ? ` ⚠ ${out.error_keywords.join(', ')}` : '';
      return `- \`${command}\` → exit ${String(out.exit_status ?? '?')}${flags}: ${firstLines(out.output)}`;
    });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The host of a runbook turn: the only one, the one the person named, or the person's answer to
 * "which host?" (AR-13). `ask` when a question is needed; `stop` when the person skipped.
 */
function chooseHost(userText: string, steps: readonly Step[]): { host: string } | { ask: string } | { stop: string } {
  const listed = record(lastOf(steps, 'list_hosts')?.output).hosts;
  const names = (Array.isArray(listed) ? listed : []).map((h) => String(record(h).name));
  if (names.length === 0) return { stop: 'No host is registered. Add one with `opsgate hosts add`, then ask again.' };
  if (names.length === 1) return { host: names[0]! };
  const named = names.find((name) => new RegExp(`(^|[^\\w.-])${escapeRegExp(name)}($|[^\\w.-])`).test(userText));
  if (named) return { host: named };
  const answerStep = lastOf(steps, 'request_human_input');
  if (!answerStep)
    return { ask: `Which host should I troubleshoot? Registered: ${names.join(', ')}. Answer with its name (Custom), or Skip to stop.` };
  const answer = record(answerStep.output);
  const text = typeof answer.text === 'string' ? answer.text.trim() : '';
  if (answer.answer === 'custom' && names.includes(text)) return { host: text };
  return { stop: `Stopped: no host chosen (answer: ${String(answer.answer ?? 'none')}${text ? ` "${text}"` : ''}).` };
}

/** The registered host's key is not pinned: commands would fail after approval, so none is proposed. */
function unpinnedKeyAnswer(host: string): string {
  return [
    `The SSH host key of ${host} is not pinned yet, so I will not propose commands there: they could not run safely.`,
    `An admin pins it after checking the fingerprint out of band: in the web UI under Admin → Hosts ("Trust this key"),`,
    `or with \`opsgate hosts trust ${host} SHA256:…\` (\`opsgate hosts list\` shows the host).`,
  ].join(' ');
}

function hostKeyPinned(steps: readonly Step[], host: string): boolean {
  const listed = record(lastOf(steps, 'list_hosts')?.output).hosts;
  const entry = (Array.isArray(listed) ? listed : []).map(record).find((h) => h.name === host);
  return entry?.host_key !== 'not confirmed';
}

/** The host a "run CMD" turn targets when it can be told: the one named, or the only one. */
function runTarget(userText: string, steps: readonly Step[]): string | undefined {
  const listed = record(lastOf(steps, 'list_hosts')?.output).hosts;
  const names = (Array.isArray(listed) ? listed : []).map((h) => String(record(h).name));
  if (names.length === 1) return names[0];
  return names.find((name) => new RegExp(`(^|[^\\w.-])${escapeRegExp(name)}($|[^\\w.-])`).test(userText));
}

/** A suggestion chip of a runbook, answered with its remediation and `run` chips for the commands it names. */
function remediationAnswer(runbook: Runbook, chip: string): string {
  const commands = [...runbook.remediation.matchAll(/`([^`]+)`/g)].map((m) => `run ${m[1]}`);
  const lines = [
    `**${chip}** (${runbook.title}): ${runbook.remediation || 'the runbook describes no remediation for this.'}`,
    '',
    commands.length > 0
      ? 'Pick a command below to have it proposed for approval, or type "run <command>".'
      : 'Type "run <command>" to have a command proposed for approval.',
    '',
    `[Open runbook](${runbook.path})`,
  ];
  return `${appendRunbookLinks(lines.join('\n'))}${commands.length > 0 ? `\n${suggestionBlock(commands)}` : ''}`;
}

function findSuggestion(runbooks: Map<string, Runbook>, userText: string): Runbook | undefined {
  const wanted = userText.trim().toLowerCase();
  return [...runbooks.values()].find((r) => r.suggestions.some((s) => s.toLowerCase() === wanted));
}

function suggestionBlock(items: readonly string[]): string {
  return ['[SUGGESTIONS]', ...items.slice(0, 4).map((s) => `- ${s}`), '[/SUGGESTIONS]'].join('\n');
}

function lastOf(steps: readonly Step[], tool: string): Step | undefined {
  return [...steps].reverse().find((s) => s.toolName === tool);
}

/** A rejection whose reason asks to stop ("stop", "enough", "abort", …), or a withdrawn request. */
const STOP_REASON =
  /rejected this call\. Reason:.*\b(stop|stopp?ed|enough|abort|cancel|halt|quit|end it|no more)\b|withdrew this request/is;

/**
 * The person stopped the runbook by rejecting its last command with a reason like "stop": the
 * answer says so and proposes nothing more (the next step would otherwise be proposed at once).
 */
function stoppedByPerson(steps: readonly Step[]): InterpreterAction | undefined {
  const last = steps.at(-1);
  // A denied call reads as `{ denied: true, reason }`.
  const reason = record(last?.output).reason;
  if (!last?.isError || typeof reason !== 'string' || !STOP_REASON.test(reason)) return undefined;
  const ran = summarise(steps.slice(0, -1));
  return {
    text: [
      'Stopped: nothing more will be proposed, as you asked.',
      ...(ran.length > 0 ? ['', 'What ran before you stopped:', ...ran] : []),
      '',
      'Ask again (for example "disk full") to start over, or type "run <command>" for one command.',
    ].join('\n'),
  };
}

/** A still-running command is read before anything else. */
function pendingRead(steps: readonly Step[]): InterpreterAction | undefined {
  const last = steps.at(-1);
  if (!last || last.isError) return undefined;
  const out = record(last.output);
  if ((last.toolName === 'suggest_ssh_command' || last.toolName === 'read_output') && out.status === 'still_running') {
    return {
      toolCalls: [{ toolName: 'read_output', input: { host: String(out.host) } }],
      text: 'The command is still running; reading its output.',
    };
  }
  return undefined;
}

/** Commands to skip on this host: they failed or got a thumbs down before (AR-10). */
function avoided(steps: readonly Step[]): Set<string> {
  const history = record(lastOf(steps, 'get_feedback_history')?.output);
  const items = Array.isArray(history.items) ? history.items : [];
  return new Set(
    items
      .map(record)
      .filter((i) => i.rating === 'thumbs_down')
      .map((i) => String(i.command)),
  );
}

function runbookAnswer(runbook: Runbook, steps: readonly Step[], skipped: readonly string[]): string {
  const lines = [
    `**${runbook.title}** — ran the runbook's diagnostic steps:`,
    ...summarise(steps),
    ...(skipped.length > 0 ? [`Skipped (failed or thumbs down on this host before): ${skipped.map((c) => `\`${c}\``).join(', ')}`] : []),
    '',
    'Read the outputs above against the runbook and pick the remediation it describes; propose it with "run <command>" to have it approved.',
    '',
    `[Open runbook](${runbook.path})`,
  ];
  return `${appendRunbookLinks(lines.join('\n'))}\n${suggestionBlock(runbook.suggestions)}`;
}

/**
 * The troubleshoot agent's intent rules for the offline interpreter:
 * - "run CMD" proposes exactly CMD and reports its output;
 * - symptom words (disk full, high cpu, memory, service down, port in use, dns, certificate) follow
 *   the protocol: list_hosts → detect_os → get_feedback_history → each runbook step, one by one.
 */
export function troubleshootInterpreter(runbooks: Map<string, Runbook> = loadRunbooks()): InterpreterRules {
  return {
    help: [
      'run <command>            propose exactly that command on the session host',
      'disk full | high cpu | memory | service down | port in use | dns | certificate',
      '                         follow the matching runbook step by step (Linux or Windows, after detecting the OS)',
      'hosts                    list the registered hosts',
      'detect os                verify the host OS',
    ],
    next(turn) {
      const { userText, steps } = turn;
      const read = pendingRead(steps);
      if (read) return read;
      const stopped = stoppedByPerson(steps);
      if (stopped) return stopped;

      const run = RUN.exec(userText);
      if (run) {
        const command = run[1]!.trim();
        if (!steps.some((s) => s.toolName === 'suggest_ssh_command')) {
          if (!steps.some((s) => s.toolName === 'list_hosts')) return { toolCalls: [{ toolName: 'list_hosts', input: {} }] };
          const target = runTarget(userText, steps);
          if (target && !hostKeyPinned(steps, target)) return { text: unpinnedKeyAnswer(target) };
          return { toolCalls: [{ toolName: 'suggest_ssh_command', input: { command, explanation: 'Requested by the person.' } }] };
        }
        return { text: `${summarise(steps).join('\n')}\n\n${suggestionBlock(['disk full', 'high cpu', 'service down', 'hosts'])}` };
      }

      const chipOf = findSuggestion(runbooks, userText);
      if (chipOf) return { text: remediationAnswer(chipOf, userText.trim()) };

      if (/^\s*(list )?hosts\s*$/i.test(userText)) {
        if (steps.length === 0) return { toolCalls: [{ toolName: 'list_hosts', input: {} }] };
        const hosts = Array.isArray(record(steps[0]!.output).hosts) ? (record(steps[0]!.output).hosts as unknown[]) : [];
        return {
          text:
            hosts
              .map(record)
              .map((h) => `- ${h.name}: ${h.username}@${h.address}:${h.port} (${h.os}, host key ${h.host_key})`)
              .join('\n') || 'No hosts registered.',
        };
      }

      const topic = topicFor(userText) ?? (/\bdetect os\b|\bwhich os\b/i.test(userText) ? 'os' : undefined);
      if (!topic) return undefined;
      // Identify → Verify → Investigate (history) → runbook steps.
      if (!steps.some((s) => s.toolName === 'list_hosts')) {
        return { toolCalls: [{ toolName: 'list_hosts', input: {} }], text: 'Identify: which host?' };
      }
      const choice = chooseHost(userText, steps);
      if ('ask' in choice) return { toolCalls: [{ toolName: 'request_human_input', input: { question: choice.ask } }] };
      if ('stop' in choice) return { text: choice.stop };
      const host = choice.host;
      if (!hostKeyPinned(steps, host)) return { text: unpinnedKeyAnswer(host) };
      if (!steps.some((s) => s.toolName === 'detect_os')) {
        return { toolCalls: [{ toolName: 'detect_os', input: { host } }], text: 'Verify: detecting the OS.' };
      }
      const detected = record(lastOf(steps, 'detect_os')?.output);
      if (topic === 'os') return { text: `The host runs ${String(detected.os ?? 'an unknown OS')}: ${firstLines(detected.output, 2)}` };
      if (!steps.some((s) => s.toolName === 'get_feedback_history')) {
        return {
          toolCalls: [{ toolName: 'get_feedback_history', input: { host } }],
          text: 'Investigate: checking what failed here before.',
        };
      }
      const os: RunbookOs = detected.os === 'windows' ? 'windows' : 'linux';
      const runbook = runbooks.get(`${os}-${topic}`);
      if (!runbook) return { text: `No ${os} runbook for ${topic}.` };
      const avoid = avoided(steps);
      const todo = runbook.steps.filter((s) => !avoid.has(s.command));
      const proposed = steps.filter((s) => s.toolName === 'suggest_ssh_command').length;
      const next = todo[proposed];
      if (next)
        return {
          toolCalls: [
            {
              toolName: 'suggest_ssh_command',
              input: { host, command: next.command, explanation: `${runbook.title}, step: ${next.title}` },
            },
          ],
        };
      return {
        text: runbookAnswer(
          runbook,
          steps,
          runbook.steps.filter((s) => avoid.has(s.command)).map((s) => s.command),
        ),
      };
    },
  };
}
