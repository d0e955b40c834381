// Validates a body against a contract schema; failures become 400 invalid_request listing
// every failed field in details.issues.
import { AppError } from './app-error.js';
import type { RequestValidator } from '../contract/request-validator.js';

export function validated<T>(validator: RequestValidator, schema: string, body: unknown): T {
  const issues = validator.validate(schema, body);
  if (issues.length > 0) throw AppError.invalid(issues);
  return body as T;
}
