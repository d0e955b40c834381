// A bounded open-loop load for tests: `rate` requests per second for `seconds`, each sent at its
// scheduled time whether or not earlier ones have answered, to loopback only.
export interface Sent {
  sentAt: number;
  answeredAt?: number;
  status?: number;
  body?: string;
  error?: string;
}

export async function openLoop(rate: number, seconds: number, send: (i: number) => Promise<Response>): Promise<Sent[]> {
  const total = Math.round(rate * seconds);
  const started = Date.now();
  const results: Promise<Sent>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sentAt = Date.now();
    results.push(
      send(i).then(
        async (res) => ({ sentAt, status: res.status, body: await res.text(), answeredAt: Date.now() }),
        (err: Error) => ({ sentAt, error: String((err as { cause?: unknown }).cause ?? err.message) }),
      ),
    );
  }
  return Promise.all(results);
}
