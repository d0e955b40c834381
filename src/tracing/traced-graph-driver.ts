// Spans for the Neo4j driver (no maintained OpenTelemetry instrumentation covers neo4j-driver 6):
// one per query, named after its file in cypher/ (e.g. `neo4j graph/read-cluster`), with the
// access mode, inside the request's or the graph writer's trace. Used only when tracing is on.
import { SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { Driver, Session } from 'neo4j-driver';
import type { CypherCatalog } from '../graph/cypher-catalog.js';

const tracer = trace.getTracer('doorman-neo4j');

async function inSpan<T>(name: string, attributes: Record<string, string>, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes: { 'db.system': 'neo4j', ...attributes } }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(err).split('\n')[0] });
      throw err;
    } finally {
      span.end();
    }
  });
}

export function tracedGraphDriver(driver: Driver, cypher: CypherCatalog): Driver {
  const names = new Map(cypher.names().map((n) => [cypher.get(n), n]));
  const nameOf = (query: unknown) => (typeof query === 'string' ? (names.get(query) ?? 'query') : 'query');
  const wrapRunner = <T extends object>(runner: T, mode: string): T =>
    new Proxy(runner, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== 'run' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        // Result objects are thenables; awaiting one inside the span times the whole query.
        return (query: string, ...rest: unknown[]) =>
          inSpan(`neo4j ${nameOf(query)}`, { 'db.operation': nameOf(query), 'neo4j.access_mode': mode }, async () =>
            value.call(target, query, ...rest),
          );
      },
    });
  const wrapSession = (session: Session, mode: string): Session =>
    new Proxy(session, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop === 'run') return wrapRunner(target, mode).run;
        if ((prop === 'executeRead' || prop === 'executeWrite') && typeof value === 'function') {
          return (work: (tx: object) => Promise<unknown>, config?: object) =>
            inSpan(`neo4j ${prop}`, { 'neo4j.access_mode': mode }, () =>
              value.call(target, (tx: object) => work(wrapRunner(tx, mode)), config),
            );
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return new Proxy(driver, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'session')
        return (config: { defaultAccessMode?: string } = {}) =>
          wrapSession(target.session(config as never), config.defaultAccessMode ?? 'WRITE');
      if (prop === 'executeQuery') {
        return (query: string, params?: object, config?: { routing?: string }) =>
          inSpan(`neo4j ${nameOf(query)}`, { 'db.operation': nameOf(query), 'neo4j.access_mode': config?.routing ?? 'WRITE' }, () =>
            target.executeQuery(query, params, config as never),
          );
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
