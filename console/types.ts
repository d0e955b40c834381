// The shapes /console/api takes and answers with (snake_case, as on the wire): generated from the
// wire's schema (src/console/console-wire-schema.ts) into src/console/generated/, the same types
// the server's routes return. Type-only: nothing of src/ enters the bundle.
export type * from '../src/console/generated/console-wire';
