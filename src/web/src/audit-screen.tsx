import { useEffect, useState } from 'preact/hooks';
import { type AuditEventView, api, errorText, type Me } from './api.ts';

type Filters = { session: string; user: string; type: string; tool: string; target: string; from: string; to: string };

/** Rows per page. */
const AUDIT_PAGE_SIZE = 100;

function toQuery(filters: Filters): Record<string, string> {
  const iso = (local: string) => (local ? new Date(local).toISOString() : '');
  return {
    session: filters.session.trim(),
    user: filters.user.trim(),
    type: filters.type,
    tool: filters.tool.trim(),
    target: filters.target.trim(),
    from: iso(filters.from),
    to: iso(filters.to),
  };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** What an event was about, in one short phrase: the host, release, access, table or command its details name. */
function targetOf(payload: unknown): string {
  const top = record(payload);
  const args = record(top.args);
  for (const source of [args, top]) {
    for (const key of ['host', 'release', 'access_name', 'table', 'name', 'command', 'sql', 'statement']) {
      const value = source[key];
      if (typeof value === 'string' && value.trim()) return value.length > 60 ? `${value.slice(0, 60)}…` : value;
    }
  }
  return '';
}

/** The event's type in words; a withdrawal is stored as a rejection marked `withdrawn` and reads as one (review N8). */
function typeText(event: AuditEventView): string {
  if (event.type === 'tool_rejected' && record(event.payload).withdrawn === true) return 'tool withdrawn';
  return event.type.replace(/_/g, ' ');
}

/** `user:alice` → alice; `rule:x` → rule x; `agent:helm` → agent helm. */
function actorText(actor: string): string {
  return actor.replace(/^user:/, '').replace(/^(rule|agent|system):/, '$1 ');
}

/** The audit log, newest first and paged: filters (type from a list), the hash-chain status with Verify now, JSON Lines export. */
export function AuditScreen({ me, sessionId }: { me: Me; sessionId?: string }) {
  const empty: Filters = { session: sessionId ?? '', user: '', type: '', tool: '', target: '', from: '', to: '' };
  const [filters, setFilters] = useState<Filters>(empty);
  const [events, setEvents] = useState<AuditEventView[] | undefined>();
  const [hasMore, setHasMore] = useState(false);
  const [types, setTypes] = useState<string[]>([]);
  const [chain, setChain] = useState<string>('checking…');
  const [chainOk, setChainOk] = useState<boolean | undefined>();
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(false);

  const load = async (current: Filters, before?: number) => {
    setLoading(true);
    try {
      const page = await api.audit({
        ...toQuery(current),
        order: 'desc',
        limit: String(AUDIT_PAGE_SIZE),
        ...(before !== undefined ? { before: String(before) } : {}),
      });
      setEvents((shown) => (before !== undefined ? [...(shown ?? []), ...page.events] : page.events));
      setHasMore(page.hasMore);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setLoading(false);
    }
  };
  const verify = () => {
    setChain('checking…');
    setChainOk(undefined);
    api.auditVerify().then(
      (status) => {
        setChainOk(status.ok);
        setChain(
          status.ok
            ? `intact (${status.checked} events verified at ${new Date().toLocaleTimeString()})`
            : `BROKEN at event ${status.firstBrokenSeq ?? '?'}${status.reason ? `: ${status.reason}` : ''}`,
        );
      },
      (e: unknown) => setChain(errorText(e)),
    );
  };
  useEffect(() => {
    void load(filters);
    verify();
    api.auditTypes().then(setTypes, () => undefined);
  }, []);
  const text = (name: 'session' | 'user' | 'tool' | 'target', label: string, hint: string) => (
    <label htmlFor={`audit-${name}`}>
      {label}
      <input
        id={`audit-${name}`}
        type="text"
        name={name}
        placeholder={hint}
        value={filters[name]}
        onInput={(e) => setFilters({ ...filters, [name]: e.currentTarget.value })}
      />
    </label>
  );
  const time = (name: 'from' | 'to', label: string) => (
    <label htmlFor={`audit-${name}`}>
      {label}
      <input
        id={`audit-${name}`}
        type="datetime-local"
        name={name}
        value={filters[name]}
        onInput={(e) => setFilters({ ...filters, [name]: e.currentTarget.value })}
      />
    </label>
  );
  const exportHref = `/api/audit/export?${new URLSearchParams(Object.entries(toQuery(filters)).filter(([, v]) => v !== '')).toString()}`;
  return (
    <div class="audit">
      <h2>Audit log</h2>
      <p class="chain">
        Chain status:{' '}
        <strong class={chainOk === false ? 'error' : chainOk ? 'ok' : ''} data-testid="chain-status">
          {chain}
        </strong>{' '}
        <button type="button" data-testid="verify-chain" onClick={verify}>
          Verify now
        </button>
        {!me.roles.includes('approver') && !me.roles.includes('admin') && (
          <span class="muted"> · you see the events of your own sessions</span>
        )}
      </p>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setError('');
          void load(filters);
        }}
      >
        <label htmlFor="audit-type">
          Type
          <select
            id="audit-type"
            name="type"
            value={filters.type}
            onChange={(e) => setFilters({ ...filters, type: e.currentTarget.value })}
          >
            <option value="">any type</option>
            {types.map((type) => (
              <option key={type} value={type}>
                {type.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
        {text('tool', 'Tool', 'e.g. commit_transaction')}
        {text('target', 'Target', 'host, release, access…')}
        {text('user', 'User', 'username')}
        {text('session', 'Session', 'session id')}
        {time('from', 'From')}
        {time('to', 'To')}
        <button type="submit" class="primary">
          Filter
        </button>
        <a class="button" href={exportHref} download>
          Export JSON Lines
        </a>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {events === undefined ? (
        <p class="muted">Loading…</p>
      ) : events.length === 0 ? (
        <p class="muted">No events match.</p>
      ) : (
        <>
          <p class="muted" data-testid="audit-count">
            Newest first · showing {events.length} event{events.length === 1 ? '' : 's'}
            {hasMore ? '; older ones follow' : ' (all that match)'}
          </p>
          <div class="table-wrap">
            <table data-testid="audit-table">
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">Time</th>
                  <th scope="col">Type</th>
                  <th scope="col">Tool</th>
                  <th scope="col">Target</th>
                  <th scope="col">By</th>
                  <th scope="col">Session</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {events.map((event) => (
                  <tr key={event.seq} data-type={event.type} data-seq={event.seq}>
                    <td>{event.seq}</td>
                    <td>
                      <time dateTime={event.createdAt}>{new Date(event.createdAt).toLocaleString()}</time>
                    </td>
                    <td class="type" data-testid="audit-type">
                      {typeText(event)}
                    </td>
                    <td data-testid="audit-tool">{String(record(event.payload).tool ?? '')}</td>
                    <td>{targetOf(event.payload)}</td>
                    <td>{actorText(event.actor)}</td>
                    <td>{event.sessionId ? <a href={`#/sessions/${event.sessionId}`}>{event.sessionId.slice(0, 8)}</a> : '—'}</td>
                    <td>
                      <details>
                        <summary>details</summary>
                        <pre>{JSON.stringify(event.payload, null, 2)}</pre>
                        <small class="muted">hash {event.hash.slice(0, 16)}…</small>
                      </details>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {hasMore && (
            <button type="button" data-testid="audit-older" disabled={loading} onClick={() => void load(filters, events.at(-1)?.seq)}>
              Show {AUDIT_PAGE_SIZE} older events
            </button>
          )}
        </>
      )}
    </div>
  );
}
