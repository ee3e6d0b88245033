import { useEffect, useState } from 'preact/hooks';
import { AdminScreen } from './admin-screen.tsx';
import { api, type Me, whenUnauthorized } from './api.ts';
import { AuditScreen } from './audit-screen.tsx';
import { ChatScreen } from './chat-screen.tsx';
import { InboxLink } from './inbox-badge.tsx';
import { InboxScreen } from './inbox-screen.tsx';
import { LoginScreen } from './login-screen.tsx';
import { SessionsScreen } from './sessions-screen.tsx';
import { useRoute } from './use-route.ts';

export function App() {
  const [me, setMe] = useState<Me | undefined | null>(null);
  const route = useRoute();
  useEffect(() => {
    whenUnauthorized(() => setMe(undefined));
    api.me().then(setMe, () => setMe(undefined));
  }, []);
  if (me === null) return <p class="loading">Loading…</p>;
  if (me === undefined) return <LoginScreen onLogin={setMe} />;
  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" href="#/">
          opsgate
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={route.name === 'sessions' || route.name === 'session' ? 'page' : undefined}>
            Sessions
          </a>
          <a href="#/audit" aria-current={route.name === 'audit' ? 'page' : undefined}>
            Audit log
          </a>
          <InboxLink current={route.name === 'inbox'} />
          <a href="#/admin" aria-current={route.name === 'admin' ? 'page' : undefined}>
            {me.roles.includes('admin') ? 'Admin' : 'Hosts & tokens'}
          </a>
        </nav>
        <span class="who" data-testid="who">
          {me.username} <small>({me.roles.join(', ')})</small>
        </span>
        <button
          type="button"
          class="link"
          onClick={async () => {
            await api.logout().catch(() => {});
            setMe(undefined);
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        {route.name === 'sessions' && <SessionsScreen me={me} />}
        {route.name === 'session' && <ChatScreen key={route.id} sessionId={route.id} me={me} />}
        {route.name === 'inbox' && <InboxScreen me={me} />}
        {route.name === 'admin' && <AdminScreen me={me} />}
        {route.name === 'not-found' && (
          <section class="not-found" data-testid="not-found">
            <h2>There is no page here</h2>
            <p>
              Nothing in opsgate lives at <code>#{route.path}</code>. Go to <a href="#/">your sessions</a>, the{' '}
              <a href="#/inbox">approvals</a> or the <a href="#/audit">audit log</a>.
            </p>
          </section>
        )}
        {route.name === 'audit' && <AuditScreen me={me} {...(route.sessionId ? { sessionId: route.sessionId } : {})} />}
      </main>
    </div>
  );
}
