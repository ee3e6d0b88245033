import { DataTable } from './data-table.tsx';

interface RowChange {
  readonly table: string;
  readonly operation: 'insert' | 'update' | 'delete';
  readonly before?: Readonly<Record<string, unknown>>;
  readonly after?: Readonly<Record<string, unknown>>;
}

interface DroppedTable {
  readonly table: string;
  readonly rows: number | null;
}

interface SchemaChange {
  readonly name: string;
  readonly operation: 'create' | 'drop' | 'alter';
  readonly before?: string;
  readonly after?: string;
}

/** The sandbox's pending changes (a `ChangePreview`), if `details` is one. */
export function asChangePreview(details: unknown):
  | {
      rows: RowChange[];
      schema: SchemaChange[];
      statements: Array<{ sql: string; changes: number }>;
      unlistedChanges: number;
      droppedTables: DroppedTable[];
    }
  | undefined {
  if (!details || typeof details !== 'object') return undefined;
  const record = details as Record<string, unknown>;
  if (!Array.isArray(record.rows) || !Array.isArray(record.schema) || !Array.isArray(record.statements)) return undefined;
  return {
    rows: record.rows as RowChange[],
    schema: record.schema as SchemaChange[],
    statements: record.statements as Array<{ sql: string; changes: number }>,
    unlistedChanges: typeof record.unlistedChanges === 'number' ? record.unlistedChanges : 0,
    droppedTables: Array.isArray((record.impact as { droppedTables?: unknown } | undefined)?.droppedTables)
      ? ((record.impact as { droppedTables: DroppedTable[] }).droppedTables ?? [])
      : [],
  };
}

/** "its 8 rows": what a dropped table takes with it, counted before the commit. */
function rowsOf(table: DroppedTable): string {
  if (typeof table.rows !== 'number') return 'all its rows';
  return table.rows === 1 ? 'its 1 row' : `its ${table.rows} rows`;
}

/** A statement with the rows it changed; DDL changes none by count, so it says nothing rather than "0 row(s)". */
function statementLine(statement: { sql: string; changes: number }): string {
  const sql = statement.sql.trim().replace(/;?$/, ';');
  return statement.changes > 0 ? `${sql}  -- ${statement.changes} row${statement.changes === 1 ? '' : 's'}` : sql;
}

const VERB = { insert: 'inserts', update: 'updates', delete: 'deletes' } as const;

/** Row changes grouped by table and operation: before/after as tables, changed cells marked. */
export function RowChangesView({ preview }: { preview: NonNullable<ReturnType<typeof asChangePreview>> }) {
  const groups = new Map<string, RowChange[]>();
  for (const change of preview.rows) {
    const key = `${change.operation} ${change.table}`;
    groups.set(key, [...(groups.get(key) ?? []), change]);
  }
  return (
    <div class="row-changes" data-testid="row-changes">
      {preview.statements.length > 0 && (
        <pre class="command" data-testid="statements">
          {preview.statements.map(statementLine).join('\n')}
        </pre>
      )}
      {preview.schema.map((change) => {
        const dropped = preview.droppedTables.find((d) => change.operation === 'drop' && change.name === `table ${d.table}`);
        return (
          <p key={change.name} class={`schema-change ${change.operation}`} data-testid="schema-change">
            {dropped ? (
              <>
                <strong>drops {dropped.table}</strong> and {rowsOf(dropped)}
              </>
            ) : (
              <>
                <strong>{change.operation === 'drop' ? 'drops' : change.operation === 'create' ? 'creates' : 'alters'}</strong>{' '}
                {change.name}
              </>
            )}
          </p>
        );
      })}
      {[...groups.values()].map((changes) => {
        const { operation, table } = changes[0]!;
        const title = `${VERB[operation]} ${changes.length} row${changes.length === 1 ? '' : 's'} in ${table}`;
        if (operation === 'update') {
          const rows = changes.flatMap((c) => [
            { '': 'before', ...c.before },
            { '': 'after', ...c.before, ...c.after },
          ]);
          const columns = ['', ...new Set(changes.flatMap((c) => [...Object.keys(c.before ?? {}), ...Object.keys(c.after ?? {})]))];
          return (
            <DataTable
              key={title}
              caption={title}
              columns={columns}
              rows={rows}
              testId="row-change-table"
              changed={(index, column) => index % 2 === 1 && column in (changes[Math.floor(index / 2)]!.after ?? {})}
            />
          );
        }
        const rows = changes.map((c) => (operation === 'insert' ? c.after : c.before) ?? {});
        const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
        return (
          <DataTable
            key={title}
            caption={title}
            columns={columns}
            rows={rows}
            testId="row-change-table"
            changed={() => operation === 'insert'}
          />
        );
      })}
      {preview.unlistedChanges > 0 && (
        <p class="muted">{preview.unlistedChanges} statement(s) changed rows that cannot be listed (no primary key); see the statements.</p>
      )}
    </div>
  );
}
