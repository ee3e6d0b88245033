import type { Node } from 'web-tree-sitter';
import { isGlobbing, resolveWord } from './bash-words.ts';
import type { CommandInput, Redirect, SimpleCommand, Word } from './types.ts';

/** Node types whose subtree starts a fresh stdin/redirect context. */
const SUBSTITUTIONS = new Set(['command_substitution', 'process_substitution']);

interface Context {
  readonly redirects: readonly Redirect[];
  readonly input: CommandInput | undefined;
  readonly functionName: string | undefined;
  /** Words tree-sitter attached to a redirect that bash gives to the command (`rm -rf 2>/dev/null /`). */
  readonly trailingArgs?: readonly Word[];
}

/**
 * Every simple command in a parsed bash program: in lists, pipelines, subshells, groups, `if`/`while`/
 * `for`/`case` bodies, function bodies, command and process substitutions, and heredoc pipelines.
 * Declarations (`export X=…`, `unset X`) and bare assignments come out as commands too, so rules can
 * see them. Redirects of an enclosing statement are attached to the commands inside it. `input` is
 * the standard input of the whole program (a `sh -c` script reads what its shell was fed).
 */
export function collectSimpleCommands(root: Node, input?: CommandInput): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  visit(root, { redirects: [], input, functionName: undefined }, commands);
  return commands;
}

function visit(node: Node, context: Context, out: SimpleCommand[]): void {
  switch (node.type) {
    case 'command': {
      out.push(toSimpleCommand(node, context));
      const inner = { ...context, trailingArgs: undefined };
      for (const child of node.namedChildren) if (child.type !== 'command_name') visitChildren(child, inner, out);
      const name = node.childForFieldName('name')?.namedChildren[0];
      if (name && locatedProgram(name)) visitChildren(name, { ...inner, redirects: [], input: undefined }, out);
      return;
    }
    case 'redirected_statement': {
      const redirects = [...context.redirects];
      let input = context.input;
      const trailingArgs: Word[] = [];
      for (const redirect of node.childrenForFieldName('redirect')) {
        const parsed = toRedirect(redirect);
        if (parsed) {
          redirects.push(parsed);
          input = inputOf(parsed) ?? input;
        }
        if (redirect.type === 'file_redirect') trailingArgs.push(...redirect.childrenForFieldName('destination').slice(1).map(resolveWord));
      }
      const body = node.childForFieldName('body');
      for (const redirect of node.childrenForFieldName('redirect'))
        visitChildren(redirect, { ...context, redirects: [], input: undefined }, out);
      // A bare redirection (`> /dev/sda`) truncates or opens its target with no command at all.
      if (!body) out.push(base(node, '', '', true, trailingArgs, { ...context, redirects, input }, []));
      else visit(body, { ...context, redirects, input, trailingArgs: body.type === 'command' ? trailingArgs : undefined }, out);
      return;
    }
    case 'function_definition': {
      const name = node.childForFieldName('name');
      const body = node.childForFieldName('body');
      if (body) visit(body, { ...context, functionName: name ? resolveWord(name).text : undefined }, out);
      return;
    }
    case 'declaration_command':
    case 'unset_command': {
      const keyword = node.child(0)?.text ?? '';
      const args: Word[] = [];
      const assignments: Array<{ name: string; value: Word }> = [];
      for (const child of node.namedChildren) {
        if (child.type === 'variable_assignment') {
          const assignment = toAssignment(child);
          assignments.push(assignment);
          args.push({ text: `${assignment.name}=${assignment.value.text}`, static: assignment.value.static });
        } else args.push(resolveWord(child));
      }
      out.push(base(node, keyword, keyword, true, args, context, assignments));
      visitChildren(node, context, out);
      return;
    }
    case 'variable_assignment':
    case 'variable_assignments': {
      const assignments = node.type === 'variable_assignment' ? [toAssignment(node)] : node.namedChildren.map(toAssignment);
      out.push(base(node, '', '', true, [], context, assignments));
      visitChildren(node, context, out);
      return;
    }
    default:
      if (SUBSTITUTIONS.has(node.type)) visitChildren(node, { redirects: [], input: undefined, functionName: context.functionName }, out);
      else visitChildren(node, context, out);
  }
}

function visitChildren(node: Node, context: Context, out: SimpleCommand[]): void {
  const inner = context.trailingArgs ? { ...context, trailingArgs: undefined } : context;
  for (const child of node.namedChildren) visit(child, inner, out);
}

/** `$(which X)`, `$(command -v X)`, `$(type -P X)` as a command word: the program X, found on PATH. */
const LOCATE = /^(?:\$\(|`)\s*(?:which|command\s+-v|type\s+-[Pp])\s+([\w.+-]+)\s*(?:\)|`)$/;

function locatedProgram(node: Node): string | undefined {
  return node.type === 'command_substitution' ? LOCATE.exec(node.text)?.[1] : undefined;
}

/**
 * What a command word made of `$(echo …)` / `$(printf …)` with static arguments prints, as the words
 * bash would run: `$(echo rm) -rf /` runs `rm -rf /`, so it is checked as that. Undefined for
 * anything else (other programs, expansions, escapes, globs): those stay dynamic.
 */
function echoedWords(node: Node): string[] | undefined {
  const quoted = node.type === 'string' && node.namedChildren.length === 1;
  const substitution = quoted ? node.namedChildren[0]! : node;
  if (substitution.type !== 'command_substitution' || substitution.namedChildren.length !== 1) return undefined;
  const inner = substitution.namedChildren[0]!;
  if (inner.type !== 'command' || inner.childrenForFieldName('redirect').length > 0) return undefined;
  const program = inner.childForFieldName('name')?.text;
  const words = inner.childrenForFieldName('argument').map(resolveWord);
  if (!words.every((word) => word.static && !/[\\*?[\]{}%$`]/.test(word.text))) return undefined;
  let printed: string;
  if (program === 'echo')
    printed = words
      .map((word) => word.text)
      .filter((text, index) => !(index === 0 && text === '-n'))
      .join(' ');
  else if (program === 'printf' && words.length === 1) printed = words[0]!.text;
  else return undefined;
  const output = printed.replace(/\n+$/, '');
  const split = quoted ? [output] : output.split(/\s+/).filter((word) => word !== '');
  return split.length > 0 && !split.some((word) => word.startsWith('-') && split.indexOf(word) === 0) ? split : undefined;
}

function toSimpleCommand(node: Node, context: Context): SimpleCommand {
  const nameNode = node.childForFieldName('name');
  const nameWordNode = nameNode?.namedChildren[0] ?? nameNode;
  const located = nameWordNode ? locatedProgram(nameWordNode) : undefined;
  const echoed = nameWordNode && !located ? echoedWords(nameWordNode) : undefined;
  const nameWord = located
    ? { text: located, static: true }
    : echoed
      ? { text: echoed[0]!, static: true }
      : nameWordNode
        ? resolveWord(nameWordNode)
        : { text: '', static: true };
  const nameIsStatic =
    located !== undefined ||
    echoed !== undefined ||
    (nameWord.static && !(nameWordNode && isGlobbing(nameWordNode)) && !/[{},]/.test(nameWord.text.length > 1 ? nameWord.text : ''));
  const args = [
    // Stryker disable next-line ArrayDeclaration: .slice(1) of a one-entry list is empty, as of an empty one
    ...(echoed ?? []).slice(1).map((text) => ({ text, static: true })),
    ...node.childrenForFieldName('argument').map(resolveWord),
    ...(context.trailingArgs ?? []),
  ];
  const redirects = [...context.redirects];
  let input = pipedInto(node) ? 'pipe' : context.input;
  for (const redirect of node.childrenForFieldName('redirect')) {
    const parsed = toRedirect(redirect);
    if (parsed) {
      redirects.push(parsed);
      input = inputOf(parsed) ?? input;
    }
  }
  const assignments = node.namedChildren.filter((child) => child.type === 'variable_assignment').map(toAssignment);
  const program = nameWord.text.slice(nameWord.text.lastIndexOf('/') + 1);
  const recursiveSpawn = context.functionName !== undefined && program === context.functionName && spawnsConcurrently(node);
  return { ...base(node, nameWord.text, program, nameIsStatic, args, { ...context, redirects, input }, assignments), recursiveSpawn };
}

function base(
  node: Node,
  name: string,
  program: string,
  nameIsStatic: boolean,
  args: readonly Word[],
  context: Context,
  assignments: ReadonlyArray<{ name: string; value: Word }>,
): SimpleCommand {
  return {
    name,
    program,
    nameIsStatic,
    args,
    redirects: context.redirects,
    input: context.input,
    assignments,
    via: [],
    segment: node.text,
  };
}

function toAssignment(node: Node): { name: string; value: Word } {
  const name = node.childForFieldName('name')?.text ?? '';
  const value = node.childForFieldName('value');
  return { name, value: value ? resolveWord(value) : { text: '', static: true } };
}

function toRedirect(node: Node): Redirect | undefined {
  if (node.type === 'heredoc_redirect') {
    // The body is the program a shell or interpreter reads; it is static when nothing in it expands.
    const body = node.namedChildren.find((child) => child.type === 'heredoc_body');
    const expands = body?.namedChildren.some((child) => child.type !== 'heredoc_content') ?? false;
    return { operator: '<<', target: { text: body?.text ?? '', static: !expands } };
  }
  if (node.type === 'herestring_redirect') {
    const value = node.namedChildren[0];
    return { operator: '<<<', target: value ? resolveWord(value) : { text: '', static: true } };
  }
  if (node.type !== 'file_redirect') return undefined;
  const operator = node.children.find((child) => !child.isNamed)?.text ?? '>';
  const destinations = node.childrenForFieldName('destination');
  const target = destinations.length > 0 ? resolveWord(destinations[0]!) : { text: '', static: true };
  return { operator, target };
}

function inputOf(redirect: Redirect): CommandInput | undefined {
  // toRedirect gives `<<-` heredocs the operator `<<` too.
  if (redirect.operator === '<<') return 'heredoc';
  if (redirect.operator === '<<<') return 'herestring';
  if (redirect.operator === '<' || redirect.operator === '<>' || redirect.operator === '<&') return 'file';
  return undefined;
}

/** True when the command (or a group or subshell around it) is on the receiving side of a `|`. */
function pipedInto(node: Node): boolean {
  for (let current: Node | null = node; current && current.type !== 'program'; current = current.parent) {
    if (SUBSTITUTIONS.has(current.type)) return false;
    const previous = current.previousSibling;
    if (previous && (previous.type === '|' || previous.type === '|&')) return true;
  }
  return false;
}

/** True when the command is part of a pipeline or followed by `&` (it runs beside its caller). */
function spawnsConcurrently(node: Node): boolean {
  for (let current: Node | null = node; current && current.type !== 'function_definition'; current = current.parent) {
    if (current.parent?.type === 'pipeline') return true;
    const next = current.nextSibling;
    if (next && next.type === '&') return true;
  }
  return false;
}
