import { useEffect, useState } from 'preact/hooks';
import { type AgentInfo, api, errorText, type Me, type SessionSummary } from './api.ts';
import { navigate } from './use-route.ts';

const POLL_MS = 4000;

export function SessionsScreen({ me }: { me: Me }) {
  const mayDecideOthers = me.roles.includes('approver') || me.roles.includes('admin');
  const [agents, setAgents] = useState<AgentInfo[]>([]);
  const [sessions, setSessions] = useState<SessionSummary[] | undefined>();
  const [all, setAll] = useState(mayDecideOthers);
  const [error, setError] = useState('');
  useEffect(() => {
    api.agents().then(setAgents, (e: unknown) => setError(errorText(e)));
  }, []);
  useEffect(() => {
    let stop = false;
    const load = () =>
      api.sessions(all).then(
        (list) => !stop && setSessions(list),
        (e: unknown) => !stop && setError(errorText(e)),
      );
    void load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, [all]);
  const start = async (agent: string) => {
    try {
      const session = await api.startSession(agent);
      navigate(`#/sessions/${session.id}`);
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <div class="sessions">
      <section aria-labelledby="new-session">
        <h2 id="new-session">New session</h2>
        <div class="agent-grid">
          {agents.map((agent) => (
            <div class="card agent" key={agent.name}>
              <h3>{agent.title}</h3>
              <p class="muted">{agent.description}</p>
              {agent.notice && (
                <p class="notice" data-testid={`notice-${agent.name}`} role="note">
                  {agent.notice}
                </p>
              )}
              <button type="button" class="primary" data-testid={`new-${agent.name}`} onClick={() => start(agent.name)}>
                Start {agent.name} session
              </button>
            </div>
          ))}
        </div>
      </section>
      <section aria-labelledby="your-sessions">
        <h2 id="your-sessions">
          Sessions
          {mayDecideOthers && (
            <label class="inline">
              <input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} /> everyone's
            </label>
          )}
        </h2>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {sessions === undefined ? (
          <p class="muted">Loading…</p>
        ) : sessions.length === 0 ? (
          <p class="muted">No sessions yet. Start one above.</p>
        ) : (
          <ul class="session-list">
            {sessions.map((s) => (
              <li key={s.id}>
                <a href={`#/sessions/${s.id}`} class="session-row" data-testid="session-row">
                  <span class="agent-tag">{s.agent}</span>
                  <span class="title">{s.title || 'Untitled'}</span>
                  {s.waiting && (s.username === me.username || mayDecideOthers) && <span class="badge waiting">waiting for you</span>}
                  <span class={`status ${s.status}`}>{s.status}</span>
                  {s.username !== me.username && <span class="muted">{s.username}</span>}
                  <time class="muted" dateTime={s.updatedAt}>
                    {new Date(s.updatedAt).toLocaleString()}
                  </time>
                </a>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
