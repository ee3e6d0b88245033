import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type RunbookOs = 'linux' | 'windows';

interface RunbookStep {
  readonly title: string;
  /** The exact command of the step (the first code span of a numbered line under "## Steps"). */
  readonly command: string;
}

export interface Runbook {
  /** e.g. `disk-full`. */
  readonly topic: string;
  readonly os: RunbookOs;
  readonly title: string;
  /** Repository-relative path, used in `[Open runbook](…)` links (AR-20). */
  readonly path: string;
  readonly steps: readonly RunbookStep[];
  readonly suggestions: readonly string[];
  /** The text under `## Remediation` (what the suggestion chips lead to). */
  readonly remediation: string;
}

/** `docs/runbooks` of this checkout. */
const RUNBOOK_DIR = fileURLToPath(new URL('../../../../docs/runbooks/', import.meta.url));

/**
 * Parses a runbook: `# Title`, numbered lines under `## Steps` whose first code span is the
 * command, and `- ` items under `## Suggestions` (follow-up chips).
 */
export function parseRunbook(markdown: string, file: string): Runbook {
  const name = /^(linux|windows)-([a-z0-9-]+)\.md$/.exec(file);
  if (!name) throw new Error(`runbook file ${file} must be named linux-<topic>.md or windows-<topic>.md`);
  const title = /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? file;
  const steps: RunbookStep[] = [];
  const suggestions: string[] = [];
  const remediation: string[] = [];
  let section = '';
  for (const line of markdown.split('\n')) {
    const heading = /^##\s+(.+)$/.exec(line);
    if (heading) {
      section = heading[1]!.trim().toLowerCase();
      continue;
    }
    if (section === 'steps') {
      const step = /^\d+\.\s+(.*)$/.exec(line);
      const command = step ? /`([^`]+)`/.exec(step[1]!) : null;
      if (step && command) steps.push({ title: step[1]!.replace(/[:\s]*`[^`]+`.*$/, '').trim(), command: command[1]! });
    } else if (section === 'remediation') {
      remediation.push(line);
    } else if (section === 'suggestions') {
      const item = /^[-*]\s+(.+)$/.exec(line);
      if (item) suggestions.push(item[1]!.trim());
    }
  }
  return {
    topic: name[2]!,
    os: name[1] as RunbookOs,
    title,
    path: `docs/runbooks/${file}`,
    steps,
    suggestions,
    remediation: remediation.join('\n').trim(),
  };
}

/** Every runbook in `dir`, by `<os>-<topic>`. */
export function loadRunbooks(dir: string = RUNBOOK_DIR): Map<string, Runbook> {
  const runbooks = new Map<string, Runbook>();
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.md') || file === 'README.md') continue;
    const runbook = parseRunbook(readFileSync(join(dir, file), 'utf8'), file);
    runbooks.set(`${runbook.os}-${runbook.topic}`, runbook);
  }
  return runbooks;
}

/** Symptom words → runbook topic (the offline interpreter's intent rules). First match wins. */
const SYMPTOMS: ReadonlyArray<{ readonly topic: string; readonly pattern: RegExp }> = [
  { topic: 'disk-full', pattern: /\bdisk (is )?full\b|no space left|disk space|out of disk|\binodes?\b|filesystem (is )?full/i },
  { topic: 'port-in-use', pattern: /\bport\b.*\bin use\b|address already in use|eaddrinuse|port in use/i },
  { topic: 'high-cpu', pattern: /\bhigh cpu\b|\bcpu\b.*\b(high|100|usage|load)\b|load average|\bslow\b/i },
  { topic: 'memory-pressure', pattern: /\bmemory\b|\boom\b|out of memory|\bswap(ping)?\b|\bram\b/i },
  {
    topic: 'service-down',
    pattern: /\bservice\b.*\b(down|dead|stopped|failed|not running|crash)|\bservice down\b|\bis down\b|not responding/i,
  },
  { topic: 'dns', pattern: /\bdns\b|name resolution|cannot resolve|could not resolve|nslookup|resolv\.conf/i },
  { topic: 'certificate-expiry', pattern: /\bcertificates?\b|\bcert\b|\bssl\b|\btls\b|expir(y|ed|es)/i },
];

export function topicFor(text: string): string | undefined {
  return SYMPTOMS.find((symptom) => symptom.pattern.test(text))?.topic;
}
