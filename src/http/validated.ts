// Validates a body or query against a contract schema; failures become 400 invalid_request
// listing every failed field in details.issues. Text and nesting the service never accepts
// (contract/input-issues.ts) are reported beside the schema's own failures, one issue a path.
import { AppError } from '../errors.js';
import { inputIssues } from '../contract/input-issues.js';
import type { RequestValidator } from '../contract/request-validator.js';

export function validated<T>(validator: RequestValidator, schema: string, body: unknown): T {
  const issues = inputIssues(body);
  const reported = new Set(issues.map((issue) => issue.path));
  issues.push(...validator.validate(schema, body).filter((issue) => !reported.has(issue.path)));
  if (issues.length > 0) throw AppError.invalid(issues);
  return body as T;
}
