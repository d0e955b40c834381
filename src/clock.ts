// The clock every room reads through `deps.clock`, so a test can set the time (rule 9). Apart from
// the composition root so that a one-shot CLI command can have it without loading every client.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
