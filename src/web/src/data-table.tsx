/** A value as a table cell: strings as is, null marked, everything else as JSON. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** Rows as a real table (monospace, aligned), with the row count; `changed` marks cells by column. */
export function DataTable({
  columns,
  rows,
  caption,
  changed,
  testId = 'data-table',
}: {
  columns: readonly string[];
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>;
  caption?: string;
  changed?: (row: number, column: string) => boolean;
  testId?: string;
}) {
  return (
    <div class="table-scroll">
      <table class="data" data-testid={testId}>
        <caption>{caption ?? `${rows.length} row${rows.length === 1 ? '' : 's'}`}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index}>
              {columns.map((column) => {
                const value = row[column];
                return (
                  <td
                    key={column}
                    class={[value === null ? 'null' : '', typeof value === 'number' ? 'num' : '', changed?.(index, column) ? 'changed' : '']
                      .filter(Boolean)
                      .join(' ')}
                  >
                    {cellText(value)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function objectRows(value: unknown): Array<Record<string, unknown>> | undefined {
  if (!Array.isArray(value)) return undefined;
  const rows = value.filter((r): r is Record<string, unknown> => !!r && typeof r === 'object' && !Array.isArray(r));
  return rows.length === value.length ? rows : undefined;
}

/**
 * Reads a table out of a tool result, if it holds one: `{ columns, rows }` (a query result), or a
 * list of records such as `{ columns: [{ name, type, … }] }` (a table described) or `{ tables: […] }`
 * — which otherwise reached people as JSON or as pipe-separated text in a proportional font.
 */
export function asQueryResult(value: unknown): { columns: string[]; rows: Array<Record<string, unknown>> } | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const record = value as { columns?: unknown; rows?: unknown; tables?: unknown };
  const listed = record.rows === undefined ? (objectRows(record.columns) ?? objectRows(record.tables)) : undefined;
  if (listed) return listed.length > 0 ? { columns: [...new Set(listed.flatMap((r) => Object.keys(r)))], rows: listed } : undefined;
  const rows = objectRows(record.rows);
  if (!rows) return undefined;
  const columns = Array.isArray(record.columns)
    ? record.columns.filter((c): c is string => typeof c === 'string')
    : [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return columns.length > 0 ? { columns, rows } : undefined;
}
