import { useState } from 'preact/hooks';
import { ApiError, api, type Me } from './api.ts';
import { SsoLink } from './sso-link.tsx';

export function LoginScreen({ onLogin }: { onLogin: (me: Me) => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <main class="login">
      <form
        class="card"
        onSubmit={async (event) => {
          event.preventDefault();
          const data = new FormData(event.currentTarget);
          setBusy(true);
          setError('');
          try {
            onLogin(await api.login(String(data.get('username')), String(data.get('password'))));
          } catch (failure) {
            setError(failure instanceof ApiError ? failure.message : 'The server cannot be reached. Try again.');
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>opsgate</h1>
        <p class="muted">Agents that operate real systems, with a person in the loop.</p>
        <label>
          Username
          <input name="username" autocomplete="username" required autofocus />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
        <SsoLink />
      </form>
    </main>
  );
}
