// The console API's answers held to the wire's schema (src/console/console-wire-schema.ts): each
// JSON answer is checked with Ajv against its route's response definition (every object closed
// unless the schema opens it, every required field present), an error against ErrorBody. A
// field a route adds or renames without the schema, or a route the schema does not name, fails
// the test that made the request. Ajv is strict about the schema itself, so a mistyped keyword
// in it fails here too.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type request from 'supertest';
import { CONSOLE_ROUTES, CONSOLE_WIRE, CONSOLE_WIRE_ID, type WireName, type WireRoute } from '../../src/console/console-wire-schema.js';
import type { ConsoleClient } from '../support/console-session.js';

const ajv = new Ajv2020({ allErrors: true, strict: true });
// The server writes times with Date#toISOString: RFC 3339, UTC.
ajv.addFormat('date-time', (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(s) && !Number.isNaN(Date.parse(s)));
ajv.addSchema(CONSOLE_WIRE);

const checker = (name: WireName) => {
  const check = ajv.getSchema(`${CONSOLE_WIRE_ID}#/$defs/${name}`);
  if (!check) throw new Error(`the console wire has no definition ${name}`);
  return check;
};

const ROUTES = Object.entries(CONSOLE_ROUTES as Record<string, WireRoute>).map(([key, route]) => {
  const [method, path] = key.split(' ') as [string, string];
  return { key, method, pattern: new RegExp(`^${path.replace(/:\w+/g, '[^/]+')}$`), route };
});

// The route of a request to /console/api (path relative to it, query string allowed).
export const routeOf = (method: string, path: string) => ROUTES.find((r) => r.method === method && r.pattern.test(path.split('?')[0]!));

// What is wrong with an answer, as the wire sees it (nothing: it conforms).
export function wireProblems(method: string, path: string, status: number, body: unknown): string[] {
  const at = `${method} ${path} (${status})`;
  if (status >= 400) {
    const check = checker('ErrorBody');
    return check(body) ? [] : [`${at}: the error body is not an ErrorBody: ${ajv.errorsText(check.errors)}`];
  }
  const found = routeOf(method, path);
  if (!found) return [`${at}: no route of CONSOLE_ROUTES (src/console/console-wire-schema.ts) matches`];
  const expected = found.route.status ?? 200;
  if (status !== expected) return [`${at}: ${found.key} answers ${expected} by the wire`];
  if (found.route.response === null) return [];
  const check = checker(found.route.response);
  if (check(body)) return [];
  return (check.errors ?? []).map(
    (e) =>
      `${at}: ${found.route.response}${e.instancePath} ${e.message}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`,
  );
}

// A supertest assertion: the answer conforms, and its route is noted in `seen`.
export function conforms(method: string, path: string, seen?: Set<string>): (res: request.Response) => void {
  return (res) => {
    const problems = wireProblems(method, path, res.status, res.body);
    if (problems.length > 0) throw new Error(`the console's answer does not match its wire schema:\n  ${problems.join('\n  ')}`);
    const found = routeOf(method, path);
    if (found && res.status < 400) seen?.add(found.key);
  };
}

// The same analyst, every answer checked.
export function wireChecked(client: ConsoleClient, seen?: Set<string>): ConsoleClient {
  return {
    ...client,
    get: (path) => client.get(path).expect(conforms('GET', path, seen)),
    post: (path, body) => client.post(path, body).expect(conforms('POST', path, seen)),
  };
}
