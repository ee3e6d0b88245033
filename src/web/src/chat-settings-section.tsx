import { useCallback, useEffect, useState } from 'preact/hooks';
import { errorText, request } from './api.ts';

interface ChatSettingsView {
  readonly publicUrl: string;
  readonly slack: {
    readonly enabled: boolean;
    readonly channel: string;
    readonly botTokenSet: boolean;
    readonly signingSecretSet: boolean;
  };
  readonly teams: { readonly enabled: boolean };
  readonly links: ReadonlyArray<{ readonly username: string; readonly slackUserId: string; readonly email: string }>;
}

const chatApi = {
  get: () => request<ChatSettingsView>('GET', '/api/admin/chat'),
  slack: (input: { botToken?: string; signingSecret?: string; channel: string; enabled: boolean }) =>
    request('PUT', '/api/admin/chat/slack', input),
  teams: (webhookUrl: string) => request('PUT', '/api/admin/chat/teams', { webhookUrl }),
  common: (publicUrl: string) => request('PUT', '/api/admin/chat/common', { publicUrl }),
  test: (provider: 'slack' | 'teams') => request<{ message: string }>('POST', `/api/admin/chat/${provider}/test`, {}),
  link: (username: string, slackUserId: string, email: string) =>
    request('PUT', `/api/admin/chat/slack/links/${encodeURIComponent(username)}`, { slackUserId, email }),
};

/** Admin → Chat approvals: where Slack and Teams requests go, and who each Slack member is in opsgate. */
export function ChatSettingsSection() {
  const [view, setView] = useState<ChatSettingsView | undefined>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const [slack, setSlack] = useState({ botToken: '', signingSecret: '', channel: '' });
  const [teamsUrl, setTeamsUrl] = useState('');
  const [publicUrl, setPublicUrl] = useState('');
  const [links, setLinks] = useState<Record<string, { slackUserId: string; email: string }>>({});
  const reload = useCallback(async () => {
    const next = await chatApi.get();
    setView(next);
    setPublicUrl(next.publicUrl || location.origin);
    setSlack((current) => ({ ...current, channel: next.slack.channel }));
    setLinks(Object.fromEntries(next.links.map((l) => [l.username, { slackUserId: l.slackUserId, email: l.email }])));
  }, []);
  useEffect(() => {
    reload().catch((e: unknown) => setMessage({ ok: false, text: errorText(e) }));
  }, [reload]);
  const run = async (work: () => Promise<string>) => {
    try {
      setMessage({ ok: true, text: await work() });
      await reload();
    } catch (e) {
      setMessage({ ok: false, text: errorText(e) });
    }
  };
  // The address the field shows is what links will open: saved with Slack or Teams when nobody saved
  // one, so the first card does not go out without "Review and decide" (issue 31, item 3).
  const saveAddressIfUnsaved = async () => {
    if (!view?.publicUrl && publicUrl.trim()) await chatApi.common(publicUrl.trim());
  };
  const sendTest = (provider: 'slack' | 'teams') => run(async () => (await chatApi.test(provider)).message);
  if (!view) return null;
  const plainHttp = /^http:\/\//i.test(publicUrl.trim());
  return (
    <section class="card" aria-labelledby="chat-title" data-testid="admin-chat">
      <h2 id="chat-title">Chat approvals (Slack, Teams)</h2>
      <p class="muted">
        Approval requests are posted with the same readable preview as here. In Slack, approvers decide with the buttons, as their opsgate
        user; in Teams, the card links to the request here. The Slack app needs the bot scopes <code>chat:write</code>,{' '}
        <code>users:read</code>, <code>users:read.email</code> and <code>im:write</code>, and Interactivity turned on with the Request URL
        below.
      </p>
      {message && (
        <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'} data-testid="chat-message">
          {message.text}
        </p>
      )}
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            await chatApi.common(publicUrl.trim());
            return 'Saved the address links open.';
          });
        }}
      >
        <label class="grow">
          opsgate address for links
          <input value={publicUrl} placeholder="https://opsgate.example.com" onInput={(e) => setPublicUrl(e.currentTarget.value)} />
        </label>
        <button type="submit">Save address</button>
      </form>
      {!view.publicUrl && (
        <p class="muted" data-testid="address-unsaved">
          Not saved yet: it is saved with Slack or Teams below, or press Save address.
        </p>
      )}
      {plainHttp && (
        <p class="notice" role="note" data-testid="http-warning">
          This address starts with http://. Slack sends button presses only to an https:// Request URL, and links people open from chat
          should be encrypted: put opsgate behind TLS and use its https:// address.
        </p>
      )}
      <h3>Slack {view.slack.enabled ? <span class="ok">· on</span> : <span class="muted">· off</span>}</h3>
      <p class="muted">
        Interactivity Request URL for the Slack app: <code>{`${publicUrl.replace(/\/+$/, '')}/api/integrations/slack/actions`}</code>
      </p>
      <form
        class="inline-form"
        data-testid="slack-settings"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            await saveAddressIfUnsaved();
            await chatApi.slack({
              enabled: true,
              channel: slack.channel.trim(),
              ...(slack.botToken.trim() ? { botToken: slack.botToken.trim() } : {}),
              ...(slack.signingSecret.trim() ? { signingSecret: slack.signingSecret.trim() } : {}),
            });
            setSlack({ ...slack, botToken: '', signingSecret: '' });
            return slack.channel.trim()
              ? `Slack is on: requests go to channel ${slack.channel.trim()}.`
              : 'Slack is on: requests go to each approver by direct message.';
          });
        }}
      >
        <label class="grow">
          Bot token
          <input
            type="password"
            autoComplete="off"
            value={slack.botToken}
            placeholder={view.slack.botTokenSet ? 'set (type to replace)' : 'xoxb-…'}
            onInput={(e) => setSlack({ ...slack, botToken: e.currentTarget.value })}
          />
        </label>
        <label class="grow">
          Signing secret
          <input
            type="password"
            autoComplete="off"
            value={slack.signingSecret}
            placeholder={view.slack.signingSecretSet ? 'set (type to replace)' : 'from Basic Information'}
            onInput={(e) => setSlack({ ...slack, signingSecret: e.currentTarget.value })}
          />
        </label>
        <label class="grow">
          Channel id (empty: direct messages)
          <input value={slack.channel} placeholder="C0123ABCD" onInput={(e) => setSlack({ ...slack, channel: e.currentTarget.value })} />
        </label>
        <button type="submit" class="primary">
          Save Slack
        </button>
        {view.slack.enabled && (
          <button
            type="button"
            class="danger"
            onClick={() =>
              run(async () => {
                await chatApi.slack({ channel: '', enabled: false });
                return 'Slack is off.';
              })
            }
          >
            Turn Slack off
          </button>
        )}
        {view.slack.enabled && (
          <button type="button" data-testid="slack-test" onClick={() => sendTest('slack')}>
            Send test message
          </button>
        )}
      </form>
      <div class="table-scroll">
        <table data-testid="slack-links">
          <thead>
            <tr>
              <th>opsgate user</th>
              <th>Slack member id</th>
              <th>or e-mail Slack confirmed</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {view.links.map(({ username }) => {
              const link = links[username] ?? { slackUserId: '', email: '' };
              const set = (patch: Partial<typeof link>) => setLinks({ ...links, [username]: { ...link, ...patch } });
              return (
                <tr key={username} data-testid={`slack-link-${username}`}>
                  <td>{username}</td>
                  <td>
                    <input
                      aria-label={`Slack member id of ${username}`}
                      value={link.slackUserId}
                      placeholder="U0123ABCD"
                      onInput={(e) => set({ slackUserId: e.currentTarget.value })}
                    />
                  </td>
                  <td>
                    <input
                      aria-label={`Slack e-mail of ${username}`}
                      value={link.email}
                      placeholder="name@example.com"
                      onInput={(e) => set({ email: e.currentTarget.value })}
                    />
                  </td>
                  <td>
                    <button
                      type="button"
                      onClick={() =>
                        run(async () => {
                          await chatApi.link(username, link.slackUserId.trim(), link.email.trim());
                          return link.slackUserId.trim() || link.email.trim() ? `Linked ${username}.` : `Unlinked ${username}.`;
                        })
                      }
                    >
                      Save
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <h3>Microsoft Teams {view.teams.enabled ? <span class="ok">· on</span> : <span class="muted">· off</span>}</h3>
      <form
        class="inline-form"
        data-testid="teams-settings"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            await saveAddressIfUnsaved();
            await chatApi.teams(teamsUrl.trim());
            setTeamsUrl('');
            return teamsUrl.trim() ? 'Teams is on: each request is posted as a card.' : 'Teams is off.';
          });
        }}
      >
        <label class="grow">
          Incoming webhook URL (empty: off)
          <input
            type="password"
            autoComplete="off"
            value={teamsUrl}
            placeholder={view.teams.enabled ? 'set (type to replace)' : 'https://…/webhookb2/…'}
            onInput={(e) => setTeamsUrl(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary">
          Save Teams
        </button>
        {view.teams.enabled && (
          <button type="button" data-testid="teams-test" onClick={() => sendTest('teams')}>
            Send test message
          </button>
        )}
      </form>
    </section>
  );
}
