// Named durations of one request, sent as a Server-Timing header (auth, each signal source, the
// write), so a caller can see where a slow answer spent its time. A plain recorder: the use case
// fills it, the route formats it.
export class Timings {
  private readonly entries = new Map<string, number>();

  record(name: string, ms: number): void {
    this.entries.set(name, ms);
  }

  // Times a promise to its settling, whatever its outcome.
  time<T>(name: string, work: Promise<T>): Promise<T> {
    const started = performance.now();
    const done = () => this.record(name, performance.now() - started);
    work.then(done, done);
    return work;
  }

  header(): string {
    return [...this.entries].map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`).join(', ');
  }
}
