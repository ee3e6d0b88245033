import { parseSetAssignments, type Values } from '../values/merge-values.ts';

/** One sentence of the offline command language; `cluster` names a registered cluster (`on CLUSTER`). */
export type HelmCommand = HelmCommandBody & { readonly cluster?: string };

type HelmCommandBody =
  | { readonly kind: 'list'; readonly namespace?: string }
  | { readonly kind: 'status'; readonly release: string; readonly namespace: string }
  | { readonly kind: 'search'; readonly query: string }
  | {
      readonly kind: 'install';
      readonly chart: string;
      readonly release: string;
      readonly namespace: string;
      readonly version?: string;
      readonly values: Values;
      readonly timeoutSeconds?: number;
    }
  | {
      readonly kind: 'upgrade';
      readonly release: string;
      readonly namespace: string;
      readonly version?: string;
      readonly values: Values;
      readonly timeoutSeconds?: number;
    }
  | {
      readonly kind: 'rollback';
      readonly release: string;
      readonly namespace: string;
      readonly revision?: number;
      readonly timeoutSeconds?: number;
    }
  | { readonly kind: 'uninstall'; readonly release: string; readonly namespace: string; readonly timeoutSeconds?: number };

export const HELM_GRAMMAR = [
  'list releases [in NS] [on CLUSTER]',
  'status REL [in NS] [on CLUSTER]',
  'search CHART',
  'install CHART [as NAME] [in NS] [on CLUSTER] [version V] [timeout 15m] [set k=v …]',
  'upgrade REL [in NS] [on CLUSTER] [to version V] [timeout 15m] [set k=v …]',
  'rollback REL [to REVISION] [in NS] [on CLUSTER] [timeout 15m]',
  'uninstall REL [in NS] [on CLUSTER] [timeout 15m]',
];

const VERBS: Record<string, HelmCommand['kind']> = {
  list: 'list',
  status: 'status',
  show: 'status',
  get: 'status',
  describe: 'status',
  check: 'status',
  search: 'search',
  install: 'install',
  deploy: 'install',
  upgrade: 'upgrade',
  update: 'upgrade',
  rollback: 'rollback',
  uninstall: 'uninstall',
  delete: 'uninstall',
};

interface Options {
  as?: string;
  in?: string;
  on?: string;
  version?: string;
  revision?: number;
  timeoutSeconds?: number;
  set: string[];
}

/** `900`, `900s`, `15m`, `1h`, `1h30m` (Go durations in whole seconds, as `helm --timeout` takes them) → seconds. */
export function parseTimeout(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!match || text === '') return undefined;
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
}

/** Reads `[as NAME] [in NS] [on CLUSTER] [version V] [to version V] [to REVISION] [timeout D] [set k=v …]` in any order. */
function options(tokens: string[]): Options | undefined {
  const out: Options = { set: [] };
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i]!.toLowerCase();
    const next = tokens[i + 1];
    if (word === 'set') {
      out.set.push(...tokens.slice(i + 1));
      break;
    }
    if (next === undefined) return undefined;
    if (word === 'as') out.as = next;
    else if (word === 'in' || word === '-n' || word === 'namespace') out.in = next;
    else if (word === 'on' || word === 'cluster') out.on = next;
    else if (word === 'version') out.version = next;
    else if (word === 'to' && next.toLowerCase() === 'version' && tokens[i + 2]) {
      out.version = tokens[i + 2]!;
      i++;
    } else if (word === 'to' && /^\d+$/.test(next)) out.revision = Number(next);
    else if (word === 'revision' && /^\d+$/.test(next)) out.revision = Number(next);
    else if (word === 'timeout' && parseTimeout(next) !== undefined) out.timeoutSeconds = parseTimeout(next);
    else return undefined;
    i++;
  }
  return out;
}

/** Questions about charts as people ask them ("what charts are available?"): a search for everything. */
const ALL_CHARTS = /^(what|which|list|show)( me)?( the)? charts?( are| do you have| can i install)?( available| there)?[.?!]*$/i;

/**
 * The way people say the grammar's sentences (issue 31, item 10): "roll back web to revision 2"
 * is "rollback web to 2", "status of web" is "status web".
 */
function spokenToGrammar(text: string): string {
  return text
    .trim()
    .replace(/^roll\s+back\b/i, 'rollback')
    .replace(/^(status|show|get|describe|check)\s+(of|for)\s+/i, '$1 ')
    .replace(/\bto\s+revision\s+(\d+)\b/i, 'to $1');
}

/** Parses one command; undefined when the text is not in the grammar. */
export function parseHelmCommand(text: string): HelmCommand | undefined {
  if (ALL_CHARTS.test(text.trim())) return { kind: 'search', query: '' };
  const parsed = parseBody(spokenToGrammar(text));
  if (!parsed) return undefined;
  return parsed.on ? { ...parsed.command, cluster: parsed.on } : parsed.command;
}

function parseBody(text: string): { command: HelmCommandBody; on?: string } | undefined {
  const tokens = text
    .trim()
    .replace(/[.!?]$/, '')
    .split(/\s+/)
    .filter(Boolean);
  const kind = VERBS[tokens[0]?.toLowerCase() ?? ''];
  if (!kind) return undefined;
  let rest = tokens.slice(1);
  if (kind === 'list') {
    if (rest[0]?.toLowerCase() === 'releases' || rest[0]?.toLowerCase() === 'release') rest = rest.slice(1);
    const parsed = options(rest);
    return parsed
      ? { command: { kind, ...(parsed.in ? { namespace: parsed.in } : {}) }, ...(parsed.on ? { on: parsed.on } : {}) }
      : undefined;
  }
  if (rest[0]?.toLowerCase() === 'release' || rest[0]?.toLowerCase() === 'chart') rest = rest.slice(1);
  const subject = rest[0];
  if (!subject) return undefined;
  const parsed = options(rest.slice(1));
  if (!parsed) return undefined;
  let values: Values = {};
  try {
    values = parseSetAssignments(parsed.set);
  } catch {
    return undefined;
  }
  const namespace = parsed.in ?? 'default';
  const command = commandOf(kind, subject, namespace, parsed, values);
  return command ? { command, ...(parsed.on ? { on: parsed.on } : {}) } : undefined;
}

function commandOf(
  kind: HelmCommand['kind'],
  subject: string,
  namespace: string,
  parsed: Options,
  values: Values,
): HelmCommandBody | undefined {
  const timeout = parsed.timeoutSeconds !== undefined ? { timeoutSeconds: parsed.timeoutSeconds } : {};
  switch (kind) {
    case 'status':
      return { kind, release: subject, namespace };
    case 'search':
      return { kind, query: subject };
    case 'install': {
      const chartName = subject.replace(/^.*\//, '');
      return {
        kind,
        chart: subject,
        release: parsed.as ?? chartName,
        namespace,
        ...(parsed.version ? { version: parsed.version } : {}),
        values,
        ...timeout,
      };
    }
    case 'upgrade':
      return { kind, release: subject, namespace, ...(parsed.version ? { version: parsed.version } : {}), values, ...timeout };
    case 'rollback':
      return { kind, release: subject, namespace, ...(parsed.revision !== undefined ? { revision: parsed.revision } : {}), ...timeout };
    case 'uninstall':
      return { kind, release: subject, namespace, ...timeout };
  }
  return undefined;
}
