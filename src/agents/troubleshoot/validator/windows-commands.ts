import type { SimpleCommand, Word } from './types.ts';

/** PowerShell aliases (and cmd.exe built-ins with the same meaning) → canonical lower-case name. */
const WINDOWS_ALIASES: Readonly<Record<string, string>> = {
  iex: 'invoke-expression',
  icm: 'invoke-command',
  iwr: 'invoke-webrequest',
  wget: 'invoke-webrequest',
  curl: 'invoke-webrequest',
  irm: 'invoke-restmethod',
  saps: 'start-process',
  start: 'start-process',
  rm: 'remove-item',
  del: 'remove-item',
  erase: 'remove-item',
  rd: 'remove-item',
  rmdir: 'remove-item',
  ri: 'remove-item',
  gci: 'get-childitem',
  ls: 'get-childitem',
  dir: 'get-childitem',
  sal: 'set-alias',
  nal: 'new-alias',
  spps: 'stop-process',
  kill: 'stop-process',
  gwmi: 'get-wmiobject',
  rwmi: 'remove-wmiobject',
  iwmi: 'invoke-wmimethod',
  sp: 'set-itemproperty',
  rp: 'remove-itemproperty',
  ni: 'new-item',
  ii: 'invoke-item',
  mi: 'move-item',
  move: 'move-item',
  mv: 'move-item',
  sajb: 'start-job',
  gc: 'get-content',
  type: 'get-content',
  cat: 'get-content',
  '%': 'foreach-object',
  foreach: 'foreach-object',
  '?': 'where-object',
  where: 'where-object',
  sv: 'set-variable',
  set: 'set-variable',
};

interface Token {
  text: string;
  raw: string;
  start: number;
  end: number;
  dynamic: boolean;
  quoted: boolean;
}

interface Segment {
  tokens: Token[];
  start: number;
  end: number;
  /** The separator before this segment. */
  after: string;
}

interface NestedScript {
  readonly source: Word;
  readonly via: string;
  readonly segment: string;
  /** The command of `segment` runs this script as its own (`cmd /c`, `powershell -Command`, `Start-Process`), rather than a group in the line. */
  readonly wrapped?: true;
}

export interface WindowsScan {
  readonly commands: SimpleCommand[];
  readonly nested: NestedScript[];
  readonly blocked?: { readonly rule: string; readonly segment: string; readonly reason: string };
}

const CMD_SUBSTRING = /%[^%\s]*:(?:~[-\d,\s]*|[^%=\s]*=[^%]*)%|![^!\s]*:(?:~[-\d,\s]*|[^!=\s]*=[^!]*)!/;

/**
 * Splits a Windows command line (cmd.exe or PowerShell; the validator does not know which shell runs
 * it, so it honours both) into simple commands. cmd `^` escapes and PowerShell backticks are removed,
 * typographic dashes and quotes are normalised (PowerShell accepts them), and `&`, `&&`, `||`, `|`,
 * `;` and newlines separate commands. Every `( … )`, `{ … }` and `$( … )` group is returned as a
 * nested script to check on its own, and makes the word it sits in non-static.
 */
export function scanWindowsCommandLine(input: string): WindowsScan {
  const line = input
    .replace(/[\u2013\u2014\u2015]/g, '-')
    .replace(/[\u2018\u2019\u201a\u201b]/g, "'")
    .replace(/[\u201c\u201d\u201e]/g, '"');
  const obfuscated = CMD_SUBSTRING.exec(line);
  if (obfuscated) {
    return {
      commands: [],
      nested: [],
      blocked: { rule: 'cmd-variable-obfuscation', segment: line, reason: `${obfuscated[0]} builds text at run time` },
    };
  }
  const nested: NestedScript[] = [];
  const segments = split(line, nested);
  const commands: SimpleCommand[] = [];
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    if (segment.tokens.length === 0) continue;
    const own = line.slice(segment.start, segment.end).trim();
    // A piped command's segment is the pipeline so far, so rules see what feeds it.
    const previous = commands[commands.length - 1];
    const text = segment.after === '|' && previous ? `${previous.segment} | ${own}` : own;
    const command = withPipelinePaths(toCommand(segment, own, segment.after === '|'), segment.after === '|' ? previous : undefined);
    if (text !== own) commands.push({ ...command, segment: text });
    else commands.push(command);
    nested.push(...embeddedScripts(command, segment, line, own));
    const assignment = /^\$[\w:]+\s*[+\-*/]?=\s*(.+)$/s.exec(own);
    if (command.program === '(expression)' && assignment)
      nested.push({ source: { text: assignment[1]!, static: true }, via: 'assignment', segment: own });
  }
  return { commands, nested };
}

function split(line: string, nested: NestedScript[]): Segment[] {
  const segments: Segment[] = [];
  let tokens: Token[] = [];
  let token: Token | undefined;
  let segmentStart = 0;
  let after = '';
  let quote: '' | "'" | '"' = '';
  const begin = (at: number): Token => {
    token ??= { text: '', raw: '', start: at, end: at, dynamic: false, quoted: false };
    return token;
  };
  const finishToken = (at: number) => {
    if (token) {
      token.end = at;
      token.raw = line.slice(token.start, at);
      tokens.push(token);
      token = undefined;
    }
  };
  const finishSegment = (at: number, separator: string) => {
    finishToken(at);
    segments.push({ tokens, start: segmentStart, end: at, after });
    tokens = [];
    after = separator;
  };
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    const next = line[index + 1] ?? '';
    if (quote === "'") {
      if (char === "'" && next === "'") {
        token!.text += "'";
        index++;
      } else if (char === "'") quote = '';
      else token!.text += char;
      continue;
    }
    if (quote === '"') {
      if (char === '"' && next === '"') {
        token!.text += '"';
        index++;
      } else if (char === '"') quote = '';
      else if (char === '`' && next) {
        token!.text += next;
        index++;
      } else if (char === '$' && next === '(') {
        const group = balanced(line, index + 1);
        nested.push({ source: { text: group.content, static: true }, via: '$( )', segment: line });
        token!.text += line.slice(index, group.end);
        token!.dynamic = true;
        index = group.end - 1;
      } else {
        if (char === '$' && /[\w{:?]/.test(next)) token!.dynamic = true;
        token!.text += char;
      }
      continue;
    }
    if (char === '^' && next) {
      if (next !== '\n' && next !== '\r') begin(index).text += next;
      index++;
      continue;
    }
    if (char === '`' && next) {
      begin(index).text += next;
      index++;
      continue;
    }
    if (char === "'" || char === '"') {
      const current = begin(index);
      current.quoted = true;
      quote = char;
      continue;
    }
    if (char === ' ' || char === '\t') {
      finishToken(index);
      continue;
    }
    const group = char === '(' || char === '{' ? index : (char === '$' || char === '@') && (next === '(' || next === '{') ? index + 1 : -1;
    if (group !== -1) {
      const found = balanced(line, group);
      // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: only a nested script known at run time shows its via; this one is known
      nested.push({ source: { text: found.content, static: true }, via: line[group] === '{' ? 'script block' : '( )', segment: line });
      const current = begin(index);
      current.text += line.slice(index, found.end);
      current.dynamic = true;
      index = found.end - 1;
      continue;
    }
    if (char === '&' || char === '|' || char === ';' || char === '\n' || char === '\r') {
      const double = (char === '&' || char === '|') && next === char;
      finishSegment(index, double ? char + char : char);
      if (double) index++;
      segmentStart = index + 1;
      continue;
    }
    const current = begin(index);
    if (char === '$' && /[\w{:?]/.test(next)) current.dynamic = true;
    if (char === '%' && /^%[^%\s]+%/.test(line.slice(index))) current.dynamic = true;
    if (char === '!' && /^![^!\s]+!/.test(line.slice(index))) current.dynamic = true;
    current.text += char;
  }
  finishSegment(line.length, '');
  return segments;
}

const LISTS_ITEMS = new Set(['get-childitem', 'get-item']);
const TAKES_PIPED_PATHS = new Set(['remove-item', 'clear-content', 'clear-item', 'move-item']);

/** `Get-ChildItem C:\ -Recurse | Remove-Item`: the removal acts on what the listing names, so it gets those paths. */
function withPipelinePaths(command: SimpleCommand, previous: SimpleCommand | undefined): SimpleCommand {
  if (!previous || !LISTS_ITEMS.has(previous.program) || !TAKES_PIPED_PATHS.has(command.program)) return command;
  const paths = previous.args.filter((a) => !/^-[A-Za-z]+(?::.*)?$/.test(a.text));
  const recursive = previous.args.some((a) => parameterPrefix(a.text, 'recurse'));
  return { ...command, args: [...command.args, ...paths, ...(recursive ? [{ text: '-Recurse', static: true }] : [])] };
}

/** Finds the group that opens at `open` (`(` or `{`), honouring quotes; unbalanced groups run to the end. */
function balanced(line: string, open: number): { content: string; end: number } {
  let depth = 0;
  let quote = '';
  for (let index = open; index < line.length; index++) {
    const char = line[index]!;
    if (quote) {
      if (char === quote) quote = '';
      else if (char === '`' && quote === '"') index++;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    else if (char === '`') index++;
    else if (char === '(' || char === '{') depth++;
    else if (char === ')' || char === '}') {
      depth--;
      if (depth === 0) return { content: line.slice(open + 1, index), end: index + 1 };
    }
  }
  return { content: line.slice(open + 1), end: line.length };
}

/** Lower-case name without directory and executable extension, aliases resolved. */
export function normaliseWindowsProgram(name: string, quoted: boolean): string {
  const base = name.toLowerCase().replace(/^.*[\\/]/, '');
  const withoutExtension = base.replace(/\.(?:exe|com|bat|cmd)$/, '');
  if (withoutExtension !== base || quoted) return withoutExtension;
  return WINDOWS_ALIASES[withoutExtension] ?? withoutExtension;
}

/** cmd.exe built-ins that accept switches glued to their name (`del/f/s/q`, `rd/s/q`). */
const GLUED_SWITCHES =
  /^(del|erase|rd|rmdir|format|copy|xcopy|move|dir|attrib|icacls|takeown|shutdown|taskkill|robocopy)((?:\/[^/\s]*)+)$/i;

function toCommand(segment: Segment, text: string, piped: boolean): SimpleCommand {
  const glued = segment.tokens[0] && !segment.tokens[0].quoted ? GLUED_SWITCHES.exec(segment.tokens[0].text) : null;
  const tokens = glued
    ? [
        { ...segment.tokens[0]!, text: glued[1]! },
        ...glued[2]!
          .split('/')
          .slice(1)
          .map((flag) => ({ ...segment.tokens[0]!, text: `/${flag}` })),
        ...segment.tokens.slice(1),
      ]
    : segment.tokens;
  const [first, ...rest] = tokens;
  // After a single `&` (PowerShell's call operator) a computed target is a command, not an expression.
  // `& { … }` calls a literal script block, whose contents are checked as a nested script.
  const scriptBlock = first!.text.startsWith('{') && first!.text.endsWith('}');
  const called = segment.after === '&' && !scriptBlock && (first!.dynamic || /^[([@$]/.test(first!.text));
  const isExpression = !called && (scriptBlock || /^[([@]/.test(first!.text) || first!.text.startsWith('$'));
  const args: Word[] = rest.map((t) => ({ text: t.text, static: !t.dynamic }));
  if (isExpression) {
    return {
      name: first!.text,
      program: '(expression)',
      nameIsStatic: true,
      args,
      redirects: [],
      input: piped ? 'pipe' : undefined,
      assignments: [],
      via: [],
      segment: text,
    };
  }
  const name = first!.text;
  return {
    name,
    program: normaliseWindowsProgram(name, first!.quoted),
    nameIsStatic: !called && !first!.dynamic && !/[*?]/.test(name),
    args,
    redirects: [],
    input: piped ? 'pipe' : undefined,
    assignments: [],
    via: [],
    segment: text,
  };
}

/** The rest of the segment after token `index`, as written (a lone quoted token loses its quotes). */
function remainder(segment: Segment, index: number, line: string): Word {
  const rest = segment.tokens.slice(index);
  if (rest.length === 0) return { text: '', static: true };
  if (rest.length === 1 && rest[0]!.quoted) return { text: rest[0]!.text, static: true };
  return { text: line.slice(rest[0]!.start, segment.end), static: true };
}

/** Matches a PowerShell parameter by any prefix (`-fo` → `-Force`), with `-` or `/`. */
export function parameterPrefix(token: string, parameter: string, minimum = 1): boolean {
  const match = /^[-/]([A-Za-z]+)(?::.*)?$/.exec(token);
  if (!match) return false;
  const name = match[1]!.toLowerCase();
  return name.length >= minimum && parameter.toLowerCase().startsWith(name);
}

const PLACEHOLDER = '@(?:file|path|fname|relpath)';
/** forfiles' placeholders for the file it is at, bare or in quotes (its own values carry quotes, so one pair is kept). */
const FILE_PLACEHOLDER = new RegExp(`"${PLACEHOLDER}"|${PLACEHOLDER}`, 'gi');

const POWERSHELL_VALUE_PARAMETERS = [
  'executionpolicy',
  'windowstyle',
  'version',
  'inputformat',
  'outputformat',
  'psconsolefile',
  'configurationname',
  'workingdirectory',
  'settingsfile',
  'custompipename',
];

function embeddedScripts(command: SimpleCommand, segment: Segment, line: string, text: string): NestedScript[] {
  const tokens = segment.tokens;
  const found: NestedScript[] = [];
  const push = (source: Word, via: string) => found.push({ source, via, segment: text, wrapped: true });
  switch (command.program) {
    case 'cmd': {
      const index = tokens.findIndex((t, i) => i > 0 && /^\/[ckr]$/i.test(t.text));
      if (index !== -1) push(remainder(segment, index + 1, line), 'cmd /c');
      break;
    }
    case 'powershell':
    case 'pwsh': {
      for (let index = 1; index < tokens.length; index++) {
        const token = tokens[index]!.text;
        if (/^[-/]/.test(token) && token.length > 1) {
          const name = token.slice(1).toLowerCase().split(':')[0]!;
          if (('encodedcommand'.startsWith(name) && !name.startsWith('ex')) || name === 'ec') {
            const value = tokens[index + 1];
            const decoded = value ? decodeUtf16Base64(value.text) : undefined;
            push(
              decoded === undefined ? { text: value?.text ?? '', static: false } : { text: decoded, static: true },
              'powershell -EncodedCommand',
            );
            break;
          }
          if ('command'.startsWith(name)) {
            push(remainder(segment, index + 1, line), 'powershell -Command');
            break;
          }
          if ('file'.startsWith(name) && name.length >= 1) break;
          if (POWERSHELL_VALUE_PARAMETERS.some((p) => p.startsWith(name))) index++;
          continue;
        }
        push(remainder(segment, index, line), 'powershell');
        break;
      }
      break;
    }
    case 'start-process': {
      let file: Token | undefined;
      let argumentList: Token | undefined;
      for (let index = 1; index < tokens.length; index++) {
        const token = tokens[index]!.text;
        if (parameterPrefix(token, 'filepath') && tokens[index + 1]) file = tokens[++index];
        else if ((parameterPrefix(token, 'argumentlist', 2) || /^-args$/i.test(token)) && tokens[index + 1]) argumentList = tokens[++index];
        else if (/^[-/]/.test(token) && token.length > 1)
          index += /^-(?:verb|workingdirectory|windowstyle|redirect\w*|credential)$/i.test(token) ? 1 : 0;
        else if (!file && !(tokens[index]!.quoted && token === '')) file = tokens[index];
        else argumentList ??= tokens[index];
      }
      if (file)
        push(
          { text: `"${file.text}" ${argumentList?.text ?? ''}`.trim(), static: !file.dynamic && !argumentList?.dynamic },
          'Start-Process',
        );
      break;
    }
    case 'forfiles': {
      const index = tokens.findIndex((t) => /^[-/]c$/i.test(t.text));
      const folder = tokens.find((_, at) => at > 0 && /^[-/]p$/i.test(tokens[at - 1]!.text))?.text ?? '.';
      // forfiles runs the command once for every file under /p (the current folder without it): a file
      // placeholder stands for all of them, as a glob does (`del @path` under C:\Windows is `del C:\Windows\*`).
      const files = `${folder.replace(/\\$/, '')}\\*`;
      const quotedFiles = /\s/.test(files) ? `"${files}"` : files;
      if (index !== -1 && tokens[index + 1])
        push(
          {
            text: tokens[index + 1]!.text.replace(/0x22/gi, '"')
              .replace(/@fname\.@ext/gi, '@file')
              .replace(FILE_PLACEHOLDER, quotedFiles),
            static: true,
          },
          'forfiles /c',
        );
      break;
    }
    case 'invoke-command':
    case 'start-job':
    case 'start-threadjob': {
      const index = tokens.findIndex((t) => parameterPrefix(t.text, 'scriptblock', 1) || parameterPrefix(t.text, 'command', 7));
      const block = index !== -1 ? tokens[index + 1] : undefined;
      if (block && !block.text.startsWith('{')) push({ text: block.text, static: false }, `${command.name} -ScriptBlock`);
      break;
    }
  }
  return found;
}

/** Decodes PowerShell's -EncodedCommand value (UTF-16LE in base64); undefined when it is not that. */
export function decodeUtf16Base64(value: string): string | undefined {
  const clean = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(clean) || clean.length % 4 === 1) return undefined;
  const bytes = Buffer.from(clean, 'base64');
  if (bytes.length === 0 || bytes.length % 2 !== 0) return undefined;
  return bytes.toString('utf16le');
}
