/** Splits a line of YAML into key, punctuation and value spans for colouring. */
function YamlLine({ text }: { text: string }) {
  const match = /^(\s*-?\s*)([\w.\-/"']+)(:)(\s.*)?$/.exec(text);
  if (!match) return <>{text}</>;
  const value = match[4] ?? '';
  const valueClass = /^\s*(-?\d+(\.\d+)?|true|false|null)\s*$/.test(value) ? 'y-lit' : /^\s*#/.test(value) ? 'y-comment' : 'y-str';
  return (
    <>
      {match[1]}
      <span class="y-key">{match[2]}</span>
      {match[3]}
      {value && <span class={valueClass}>{value}</span>}
    </>
  );
}

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return 'file';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('=') || line.startsWith('Index:')) return 'file';
  return '';
}

/** A unified diff, one row per line: added and removed lines marked, YAML keys and values coloured. */
export function DiffView({ text, title }: { text: string; title?: string }) {
  const lines = text.replace(/\n$/, '').split('\n');
  const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length;
  const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).length;
  return (
    <figure class="diff-figure">
      <figcaption>
        {title ?? 'Changes'}: <span class="add-count">+{added}</span> <span class="del-count">−{removed}</span>
      </figcaption>
      <pre class="diff" data-testid="preview-diff">
        {lines.map((line, index) => {
          const kind = lineClass(line);
          const marker = kind === 'add' || kind === 'del' || line.startsWith(' ') ? line.slice(0, 1) : '';
          return (
            <span key={index} class={`line ${kind}`}>
              {kind === 'file' || kind === 'hunk' ? (
                line
              ) : (
                <>
                  <span class="marker">{marker || ' '}</span>
                  <YamlLine text={marker ? line.slice(1) : line} />
                </>
              )}
            </span>
          );
        })}
      </pre>
    </figure>
  );
}
