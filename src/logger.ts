// The service's structured JSON logger. Secrets are redacted by path as a second line of
// defence; the first is never putting them in a log object at all.
import { pino, type Logger } from 'pino';

// `toStderr` keeps stdout clean for the CLI's --json document.
export function createLogger(level: string, toStderr = false): Logger {
  return pino(
    {
      level,
      base: { service: 'doorman' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'authorization',
          '*.authorization',
          'headers.authorization',
          'key',
          '*.key',
          'secret',
          '*.secret',
          'components',
          '*.components',
        ],
        censor: '[redacted]',
      },
    },
    pino.destination(toStderr ? 2 : 1),
  );
}
