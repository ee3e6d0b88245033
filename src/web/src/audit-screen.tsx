import { useEffect, useState } from 'preact/hooks';
import { type AuditEventView, api, errorText, type Me } from './api.ts';

type Filters = { session: string; user: string; type: string; from: string; to: string };

function toQuery(filters: Filters): Record<string, string> {
  const iso = (local: string) => (local ? new Date(local).toISOString() : '');
  return {
    session: filters.session.trim(),
    user: filters.user.trim(),
    type: filters.type.trim(),
    from: iso(filters.from),
    to: iso(filters.to),
  };
}

/** The audit log: filters, the hash-chain status, JSON Lines export. */
export function AuditScreen({ me, sessionId }: { me: Me; sessionId?: string }) {
  const [filters, setFilters] = useState<Filters>({ session: sessionId ?? '', user: '', type: '', from: '', to: '' });
  const [events, setEvents] = useState<AuditEventView[] | undefined>();
  const [chain, setChain] = useState<string>('checking…');
  const [chainOk, setChainOk] = useState<boolean | undefined>();
  const [error, setError] = useState('');
  const load = (current: Filters) => api.audit(toQuery(current)).then(setEvents, (e: unknown) => setError(errorText(e)));
  useEffect(() => {
    void load(filters);
    api.auditVerify().then(
      (status) => {
        setChainOk(status.ok);
        setChain(
          status.ok
            ? `intact (${status.checked} events verified)`
            : `BROKEN at event ${status.firstBrokenSeq ?? '?'}${status.reason ? `: ${status.reason}` : ''}`,
        );
      },
      (e: unknown) => setChain(errorText(e)),
    );
  }, []);
  const field = (name: keyof Filters, label: string, type: 'text' | 'datetime-local' = 'text') => (
    <label htmlFor={`audit-${name}`}>
      {label}
      {type === 'text' ? (
        <input
          id={`audit-${name}`}
          type="text"
          name={name}
          value={filters[name]}
          onInput={(e) => setFilters({ ...filters, [name]: e.currentTarget.value })}
        />
      ) : (
        <input
          type="datetime-local"
          name={name}
          value={filters[name]}
          onInput={(e) => setFilters({ ...filters, [name]: e.currentTarget.value })}
        />
      )}
    </label>
  );
  const exportHref = `/api/audit/export?${new URLSearchParams(Object.entries(toQuery(filters)).filter(([, v]) => v !== '')).toString()}`;
  return (
    <div class="audit">
      <h2>Audit log</h2>
      <p>
        Chain status:{' '}
        <strong class={chainOk === false ? 'error' : chainOk ? 'ok' : ''} data-testid="chain-status">
          {chain}
        </strong>
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
        {field('session', 'Session')}
        {field('user', 'User')}
        {field('type', 'Type')}
        {field('from', 'From', 'datetime-local')}
        {field('to', 'To', 'datetime-local')}
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
        <div class="table-wrap">
          <table data-testid="audit-table">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Time</th>
                <th scope="col">Type</th>
                <th scope="col">Actor</th>
                <th scope="col">Session</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => (
                <tr key={event.seq} data-type={event.type}>
                  <td>{event.seq}</td>
                  <td>
                    <time dateTime={event.createdAt}>{new Date(event.createdAt).toLocaleString()}</time>
                  </td>
                  <td class="type">{event.type}</td>
                  <td>{event.actor}</td>
                  <td>{event.sessionId ? <a href={`#/sessions/${event.sessionId}`}>{event.sessionId.slice(0, 8)}</a> : '—'}</td>
                  <td>
                    <details>
                      <summary>payload</summary>
                      <pre>{JSON.stringify(event.payload, null, 2)}</pre>
                      <small class="muted">hash {event.hash.slice(0, 16)}…</small>
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
