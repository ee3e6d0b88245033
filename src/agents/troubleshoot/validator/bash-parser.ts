import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

let loading: Promise<Parser> | undefined;

/** Loads web-tree-sitter and the tree-sitter-bash grammar (both WASM) once per process. */
export function loadBashParser(): Promise<Parser> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const grammar = join(dirname(require.resolve('tree-sitter-bash/package.json')), 'tree-sitter-bash.wasm');
    const language = await Language.load(grammar);
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}
