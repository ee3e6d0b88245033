// Rewrites that keep what bash would run but let tree-sitter-bash read the line as bash does.

/**
 * The source with a closing line added for every heredoc whose delimiter never ends a line: bash
 * reads such a body up to the end of the input (it warns "here-document delimited by
 * end-of-file"), so `python3 <<EOF` is that line with an empty body, not an unknown one.
 */
export function closeOpenHeredocs(source: string): string {
  let closed = source;
  for (const match of source.matchAll(/<<-?[ \t]*(['"]?)([A-Za-z_][\w.-]*)\1/g)) {
    const delimiter = match[2]!;
    const rest = closed.slice((match.index ?? 0) + match[0].length);
    const closingLine = new RegExp(`\\n\\t*${delimiter.replace(/[.-]/g, '\\$&')}[ \\t]*(?:\\n|$)`);
    if (!closingLine.test(rest)) closed = `${closed}\n${delimiter}`;
  }
  return closed;
}

/**
 * tree-sitter-bash reads a line that starts with a backslash (`echo hi⏎\rm -rf /`) as more
 * arguments of the line before, and a heredoc body whose first line does as words of the redirect,
 * so the command on that line was never checked. bash runs it (`\rm` is `rm` without aliases).
 * A blank before the backslash changes nothing for bash and lets the parser see the new command.
 */
export function shieldLineStartBackslashes(source: string): string {
  return source.replace(/\n\\/g, '\n \\');
}
