// Settings of the Doorman processes in the fault suite. The signal deadline is 300 ms rather than
// 150 so a busy shared machine does not make healthy signals late; Postgres queries give up
// after 2 s so a stalled database answers 500 soon; the rate limit is out of the way except where
// a test sets its own.
export const FAULT_ENV = {
  SIGNAL_DEADLINE_MS: '300',
  PG_QUERY_TIMEOUT_MS: '2000',
  HEALTH_TIMEOUT_MS: '1000',
  RATE_LIMIT_PER_MINUTE: '1000000',
  AUTH_FAILURES_PER_IP: '1000000',
  LOG_LEVEL: 'warn',
};
