import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, api, errorText, type HostView, type Me, type TokenView, type UserView } from './api.ts';
import { ChatLinkSection } from './chat-link-section.tsx';
import { ChatSettingsSection } from './chat-settings-section.tsx';
import { ClustersSection } from './clusters-section.tsx';
import { ToolChangesSection } from './tool-changes-section.tsx';

/** Runs an admin action and reports its outcome in plain language. */
function useAction(reload: () => Promise<void>) {
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const run = async (work: () => Promise<string>) => {
    try {
      setMessage({ ok: true, text: await work() });
      await reload();
    } catch (error) {
      setMessage({ ok: false, text: errorText(error) });
    }
  };
  const view = message && (
    <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'} data-testid="admin-message">
      {message.text}
    </p>
  );
  return { run, view };
}

function HostsSection({ admin }: { admin: boolean }) {
  const [hosts, setHosts] = useState<HostView[] | undefined>();
  const [seen, setSeen] = useState<Record<string, string>>({});
  const reload = useCallback(async () => setHosts(await api.hosts()), []);
  const { run, view } = useAction(reload);
  const [form, setForm] = useState({ name: '', address: '', port: '22', username: '', secret: '', kind: 'key' as 'key' | 'password' });
  useEffect(() => {
    reload().catch(() => setHosts([]));
  }, [reload]);
  return (
    <section class="card" aria-labelledby="hosts-title" data-testid="admin-hosts">
      <h2 id="hosts-title">SSH hosts</h2>
      <p class="muted">
        The troubleshoot agent works only on hosts whose key is pinned. Compare the fingerprint with one you verified out of band (e.g. on
        the host: <code>ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</code>) before trusting it.
      </p>
      {view}
      {hosts === undefined ? (
        <p class="muted">Loading…</p>
      ) : hosts.length === 0 ? (
        <p class="muted">No hosts yet.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Login</th>
                <th>Host key</th>
                {admin && <th>Actions</th>}
              </tr>
            </thead>
            <tbody>
              {hosts.map((host) => (
                <tr key={host.name} data-testid={`host-${host.name}`}>
                  <td>{host.name}</td>
                  <td>
                    <code>
                      {host.username}@{host.address}:{host.port}
                    </code>
                  </td>
                  <td>
                    {host.hostKeySha256 ? (
                      <span class="ok">
                        pinned <code class="fingerprint">{host.hostKeySha256}</code>
                      </span>
                    ) : (
                      <span class="error">not pinned</span>
                    )}
                    {seen[host.name] && !host.hostKeySha256 && (
                      <div>
                        presents{' '}
                        <code class="fingerprint" data-testid="seen-fingerprint">
                          {seen[host.name]}
                        </code>
                      </div>
                    )}
                  </td>
                  {admin && (
                    <td class="row-actions">
                      {!host.hostKeySha256 && !seen[host.name] && (
                        <button
                          type="button"
                          onClick={() =>
                            run(async () => {
                              const fingerprint = await api.hostFingerprint(host.name);
                              setSeen((s) => ({ ...s, [host.name]: fingerprint }));
                              return `${host.name} presents ${fingerprint}. Trust it only if it matches the one you verified.`;
                            })
                          }
                        >
                          Show fingerprint
                        </button>
                      )}
                      {!host.hostKeySha256 && seen[host.name] && (
                        <button
                          type="button"
                          class="primary"
                          onClick={() =>
                            run(async () => {
                              await api.trustHost(host.name, seen[host.name]!);
                              return `Pinned the key of ${host.name}.`;
                            })
                          }
                        >
                          Trust this key
                        </button>
                      )}
                      <button
                        type="button"
                        class="danger"
                        onClick={() =>
                          confirm(`Remove ${host.name} and its stored credentials?`) &&
                          run(async () => {
                            await api.removeHost(host.name);
                            return `Removed ${host.name} and its credentials.`;
                          })
                        }
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {admin && (
        <form
          class="stack"
          data-testid="add-host"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => {
              await api.addHost({
                name: form.name.trim(),
                address: form.address.trim(),
                port: Number(form.port) || 22,
                username: form.username.trim(),
                auth: form.kind === 'key' ? { kind: 'key', privateKey: form.secret } : { kind: 'password', password: form.secret },
              });
              setForm({ name: '', address: '', port: '22', username: '', secret: '', kind: form.kind });
              return `Added ${form.name.trim()}. Its key is not pinned yet: show its fingerprint and trust it.`;
            });
          }}
        >
          <h3>Add a host</h3>
          <div class="filters">
            <label>
              Name
              <input required value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
            </label>
            <label>
              Address
              <input required value={form.address} onInput={(e) => setForm({ ...form, address: e.currentTarget.value })} />
            </label>
            <label>
              Port
              <input inputMode="numeric" value={form.port} onInput={(e) => setForm({ ...form, port: e.currentTarget.value })} />
            </label>
            <label>
              SSH user
              <input required value={form.username} onInput={(e) => setForm({ ...form, username: e.currentTarget.value })} />
            </label>
            <label>
              Sign in with
              <select value={form.kind} onChange={(e) => setForm({ ...form, kind: e.currentTarget.value as 'key' | 'password' })}>
                <option value="key">private key</option>
                <option value="password">password</option>
              </select>
            </label>
          </div>
          {form.kind === 'key' ? (
            <label>
              Private key (PEM / OpenSSH; stored in the secret store, never shown again)
              <textarea
                class="code"
                rows={4}
                required
                value={form.secret}
                onInput={(e) => setForm({ ...form, secret: e.currentTarget.value })}
              />
            </label>
          ) : (
            <label>
              Password (stored in the secret store)
              <input type="password" required value={form.secret} onInput={(e) => setForm({ ...form, secret: e.currentTarget.value })} />
            </label>
          )}
          <div class="actions">
            <button type="submit" class="primary">
              Add host
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** A message for the person, shown as it is. */
class PlainError extends ApiError {
  constructor(message: string) {
    super(400, 'INVALID_INPUT', message);
  }
}

/** What a role lets its holder do, said before an admin gives it (review N13). */
const ROLE_MEANS: Readonly<Record<string, string>> = {
  user: 'They can then only ask: no approving, no administration.',
  approver: "They can then approve other people's requests.",
  admin: 'They can then change users, roles, hosts, tokens and chat settings.',
};

/** One user: change the role (asked once more: a role is a security change, one slip of a select must not do it), set a new password. */
function UserRow({ user, run }: { user: UserView; run: (work: () => Promise<string>) => Promise<void> }) {
  const [password, setPassword] = useState('');
  const role = user.roles.includes('admin') ? 'admin' : user.roles.includes('approver') ? 'approver' : 'user';
  const [pendingRole, setPendingRole] = useState<string | undefined>();
  return (
    <tr data-testid={`user-${user.username}`}>
      <td>{user.username}</td>
      <td>
        <select
          aria-label={`Role of ${user.username}`}
          value={pendingRole ?? role}
          onChange={(e) => {
            const next = e.currentTarget.value;
            setPendingRole(next === role ? undefined : next);
          }}
        >
          <option value="user">user</option>
          <option value="approver">approver</option>
          <option value="admin">admin</option>
        </select>
        {pendingRole && (
          <div
            class="actions"
            role="alertdialog"
            aria-label={`Confirm the new role of ${user.username}`}
            data-testid={`role-confirm-${user.username}`}
          >
            <span class="confirm-text">
              Make {user.username} {pendingRole}? {ROLE_MEANS[pendingRole]}
            </span>
            <button
              type="button"
              class="danger"
              onClick={() => {
                const next = pendingRole;
                setPendingRole(undefined);
                void run(async () => {
                  await api.setRoles(user.username, [next]);
                  return `${user.username} is now ${next}.`;
                });
              }}
            >
              Yes, change the role
            </button>
            <button type="button" onClick={() => setPendingRole(undefined)}>
              Cancel
            </button>
          </div>
        )}
      </td>
      <td>
        <form
          class="row-actions"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => {
              if (password.length < 8) throw new PlainError('A password needs at least 8 characters.');
              await api.setPassword(user.username, password);
              setPassword('');
              return `Set a new password for ${user.username}; tell it to them out of band.`;
            });
          }}
        >
          <input
            type="password"
            autoComplete="new-password"
            aria-label={`New password for ${user.username}`}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <button type="submit">Reset</button>
        </form>
      </td>
    </tr>
  );
}

function UsersSection() {
  const [users, setUsers] = useState<UserView[] | undefined>();
  const reload = useCallback(async () => setUsers(await api.users()), []);
  const { run, view } = useAction(reload);
  const [form, setForm] = useState({ username: '', password: '', role: 'user' });
  useEffect(() => {
    reload().catch(() => setUsers([]));
  }, [reload]);
  return (
    <section class="card" aria-labelledby="users-title" data-testid="admin-users">
      <h2 id="users-title">Users and roles</h2>
      {view}
      <div class="table-scroll">
        <table>
          <thead>
            <tr>
              <th>User</th>
              <th>Role</th>
              <th>New password</th>
            </tr>
          </thead>
          <tbody>
            {(users ?? []).map((user) => (
              <UserRow key={user.id} user={user} run={run} />
            ))}
          </tbody>
        </table>
      </div>
      <form
        class="inline-form"
        data-testid="add-user"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            if (form.password && form.password.length < 8) throw new PlainError('A password needs at least 8 characters.');
            await api.createUser({
              username: form.username.trim(),
              roles: [form.role],
              ...(form.password ? { password: form.password } : {}),
            });
            setForm({ username: '', password: '', role: 'user' });
            return `Created ${form.username.trim()} (${form.role}).`;
          });
        }}
      >
        <label class="grow">
          New user
          <input required value={form.username} onInput={(e) => setForm({ ...form, username: e.currentTarget.value })} />
        </label>
        <label class="grow">
          Password (8+ characters; empty = token only)
          <input type="password" value={form.password} onInput={(e) => setForm({ ...form, password: e.currentTarget.value })} />
        </label>
        <label>
          Role
          <select value={form.role} onChange={(e) => setForm({ ...form, role: e.currentTarget.value })}>
            <option value="user">user</option>
            <option value="approver">approver</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <button type="submit" class="primary">
          Create user
        </button>
      </form>
    </section>
  );
}

function TokensSection() {
  const [tokens, setTokens] = useState<TokenView[] | undefined>();
  const [issued, setIssued] = useState<string | undefined>();
  const [copied, setCopied] = useState(false);
  const [name, setName] = useState('');
  const reload = useCallback(async () => setTokens(await api.tokens()), []);
  const { run, view } = useAction(reload);
  useEffect(() => {
    reload().catch(() => setTokens([]));
  }, [reload]);
  return (
    <section class="card" aria-labelledby="tokens-title" data-testid="admin-tokens">
      <h2 id="tokens-title">Your API tokens</h2>
      <p class="muted">
        Send a token as <code>Authorization: Bearer …</code>. It is shown once, when issued; opsgate keeps only its hash.
      </p>
      {view}
      {issued && (
        <p class="secret-once" data-testid="issued-token">
          Copy it now, it will not be shown again: <code>{issued}</code>{' '}
          <button
            type="button"
            data-testid="copy-token"
            onClick={() =>
              navigator.clipboard.writeText(issued).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            {copied ? 'Copied' : 'Copy'}
          </button>
        </p>
      )}
      <ul>
        {(tokens ?? []).map((token) => (
          <li key={token.id} data-testid="token-row">
            {token.name}{' '}
            <span class="muted">
              issued {new Date(token.createdAt).toLocaleString()}
              {token.issuedBy ? ` by ${token.issuedBy}` : ''} · scope {token.scopes.join(', ')}
              {token.expiresAt ? ` · expires ${new Date(token.expiresAt).toLocaleString()}` : ''}
            </span>{' '}
            <button
              type="button"
              class="danger"
              onClick={() =>
                run(async () => {
                  await api.revokeToken(token.id);
                  return `Revoked ${token.name}.`;
                })
              }
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            const token = await api.issueToken(name.trim() || 'api');
            setIssued(token.token);
            setCopied(false);
            setName('');
            return 'Issued a token.';
          });
        }}
      >
        <label class="grow">
          Token name
          <input value={name} placeholder="e.g. ci-pipeline" onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary">
          Issue token
        </button>
      </form>
    </section>
  );
}

/** Admin: hosts (add, fingerprint, trust, remove), Helm clusters, users and roles; everyone: their API tokens and Slack link. */
export function AdminScreen({ me }: { me: Me }) {
  const admin = me.roles.includes('admin');
  return (
    <div class="admin-grid">
      <HostsSection admin={admin} />
      {admin && <ToolChangesSection />}
      {admin && <ClustersSection />}
      {admin && <UsersSection />}
      {admin && <ChatSettingsSection />}
      <TokensSection />
      <ChatLinkSection />
    </div>
  );
}
