// The console's calls to /console/api: JSON in and out, the session's CSRF token on every
// state-changing request, and a 401 sends the analyst to the sign-in page.
import { navigate } from './router';
import type { ErrorBody } from './types';

let csrfToken = '';
export const setCsrfToken = (token: string): void => {
  csrfToken = token;
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export async function api<T>(path: string, options: { method?: string; body?: unknown } = {}): Promise<T> {
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`/console/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  // An error is in the error shape (ErrorBody), unless something in between (a proxy) answered.
  const data: Partial<ErrorBody> = await res.json().catch(() => ({}));
  if (!res.ok) {
    if (res.status === 401 && !['/sign-in', '/welcome'].includes(path)) navigate('/console/sign-in');
    throw new ApiError(res.status, data.error ?? 'internal', data.message ?? `HTTP ${res.status}`, data.details);
  }
  return data as T;
}

export const qs = (params: Record<string, string | number | undefined>): string => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== '') as [string, string][];
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)]))}` : '';
};
