import type { Node } from 'web-tree-sitter';
import type { Word } from './types.ts';

/** Characters that make bash expand an unquoted word at run time (globs, braces, tilde aside). */
const EXPANDING = /[*?[{]/;

/**
 * Resolves a tree-sitter-bash word node to its static value, the way bash would after quote
 * removal: `r\m`, `'r''m'`, `"rm"`, `$'\x72m'` all give `rm`. Anything with an expansion or a
 * substitution is not static. Unquoted glob and brace characters are kept but noted by `isGlobbing`.
 */
export function resolveWord(node: Node): Word {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'variable_name':
      return { text: unescapeBare(node.text), static: true };
    case 'raw_string':
      return { text: node.text.slice(1, -1), static: true };
    case 'ansi_c_string':
      return { text: decodeAnsiC(node.text.slice(2, -1)), static: true };
    case 'translated_string':
      return resolveWord(node.namedChildren[0]!);
    case 'string': {
      let text = '';
      for (const child of node.namedChildren) {
        if (child.type !== 'string_content') return { text: node.text, static: false };
        text += child.text.replace(/\\([$`"\\\n])/g, (_all, char: string) => (char === '\n' ? '' : char));
      }
      return { text, static: true };
    }
    case 'concatenation': {
      let text = '';
      for (const child of node.namedChildren) {
        const part = resolveWord(child);
        if (!part.static) return { text: node.text, static: false };
        text += part.text;
      }
      // Brace expansion `{rm,-rf,/}` is parsed as a concatenation of `{`, `rm,-rf,/`, `}`.
      return { text: node.text.includes('{') && /[{][^}]*,/.test(node.text) ? node.text : text, static: true };
    }
    case 'process_substitution':
      return { text: node.text, static: false, processSubstitution: true };
    default:
      return { text: node.text, static: false };
  }
}

/** True when an unquoted part of the word would be expanded as a glob or brace pattern. */
export function isGlobbing(node: Node): boolean {
  if (node.type === 'word') return EXPANDING.test(node.text.replace(/\\./g, ''));
  if (node.type === 'concatenation') return node.namedChildren.some((child) => isGlobbing(child));
  return false;
}

function unescapeBare(text: string): string {
  return text.includes('\\') ? text.replace(/\\(\n|.)/g, (_all, char: string) => (char === '\n' ? '' : char)) : text;
}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** Decodes the body of a `$'…'` string. */
function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/g, (_all, sequence: string) => {
    const kind = sequence[0]!;
    if (kind === 'x' || kind === 'u' || kind === 'U') return String.fromCodePoint(Number.parseInt(sequence.slice(1), 16));
    if (/[0-7]/.test(kind)) return String.fromCharCode(Number.parseInt(sequence, 8));
    if (kind === 'c') return String.fromCharCode(sequence.charCodeAt(1) & 0x1f);
    return SIMPLE_ESCAPES[kind] ?? kind;
  });
}
