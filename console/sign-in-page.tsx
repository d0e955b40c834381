// Sign-in (email and password) and the one-time link's page, which sets the password.
import { useState } from 'preact/hooks';
import { api, ApiError } from './api';
import type { Ok, SignInBody, WelcomeBody } from './types';

function useSubmit(work: () => Promise<unknown>) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await work();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Doorman did not answer; try again.');
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, submit };
}

export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, submit } = useSubmit(async () => {
    await api<Ok>('/sign-in', { body: { email, password } satisfies SignInBody });
    onSignedIn();
  });
  return (
    <form class="door" onSubmit={submit}>
      <h1>Doorman console</h1>
      <label>
        Email
        <input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </label>
      <label>
        Password
        <input
          type="password"
          name="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        Sign in
      </button>
      <p class="hint">
        No account yet? An operator creates one with <code>doorman analyst add</code> and sends you a one-time link.
      </p>
    </form>
  );
}

export function WelcomePage({ onSignedIn }: { onSignedIn: () => void }) {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const { error, busy, submit } = useSubmit(async () => {
    if (password !== again) throw new ApiError(400, 'invalid_request', 'The two passwords differ.');
    await api<Ok>('/welcome', { body: { token, password } satisfies WelcomeBody });
    onSignedIn();
  });
  if (!token)
    return (
      <p class="door empty">
        This page needs the one-time link an operator sent you (it ends in <code>#token=…</code>).
      </p>
    );
  return (
    <form class="door" onSubmit={submit}>
      <h1>Welcome to the Doorman console</h1>
      <p>Choose a password (at least 12 characters). The link works once.</p>
      <label>
        New password
        <input
          type="password"
          name="password"
          autocomplete="new-password"
          minLength={12}
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      <label>
        Once more
        <input
          type="password"
          name="again"
          autocomplete="new-password"
          minLength={12}
          required
          value={again}
          onInput={(e) => setAgain(e.currentTarget.value)}
        />
      </label>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        Set password and sign in
      </button>
    </form>
  );
}
