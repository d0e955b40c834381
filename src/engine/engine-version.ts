// The engine's own version, stored with every decision beside the policy version, so a replay
// knows what judged. Bump it (<YYYY-MM-DD>.<n>) whenever a change to src/engine/ could change a
// decision or a reason's detail; test/policies/engine-version.test.ts notices a change made
// without a bump (it fingerprints the engine's syntax trees: comments, layout, quotes, trailing
// commas and parentheses aside).
export const ENGINE_VERSION = '2026-11-26.1';
// Stryker disable next-line StringLiteral: a record of the code, checked outside the engine's tests.
export const ENGINE_FINGERPRINT = '2f263b7b65838cac';
