// The contract as data: the OpenAPI 3.1 document served at GET /v1/openapi.json, and the only source of the request schemas the validator compiles.
// Schemas use JSON Schema 2020-12 keywords only (`examples`, never `example` or `nullable`) so Ajv compiles them in strict mode.
// `x-error-message` on a schema is the human message for a value failing its pattern, format or alternatives.

export type OpenApiDocument = Record<string, unknown>;

const eventTypes = ['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'];
const eventTypesRequiringIp = ['signup', 'trial_start', 'checkout_attempt'];
const verdicts = ['allow', 'review', 'block'];

const errorCodes = ['invalid_request', 'unauthorized', 'not_found', 'idempotency_conflict', 'conflict', 'rate_limited', 'internal'];
const reasonCodes = [
  'disposable_email',
  'invalid_mx',
  'young_domain',
  'malformed_email',
  'proxy_ip',
  'tor_exit',
  'datacenter_ip',
  'velocity_ip_signups',
  'velocity_device_signups',
  'velocity_domain_signups',
  'velocity_card_attempts',
  'velocity_ip_card_attempts',
  'velocity_cluster_trials',
  'velocity_distinct_cards',
  'velocity_card_countries',
  'ato_new_device',
  'ato_account_device_burst',
  'identity_cluster',
  'cluster_confirmed_abuse',
  'hub_confirmed_abuse',
  'cluster_trusted',
  'prepaid_card',
  'card_probe_pattern',
  'allowlisted',
  'blocklisted',
  'timeout_failopen',
  'partial_enrichment',
  'cluster_chargeback',
  'test_fixture',
];
const recommendedActions = ['challenge', 'hold'];
// What `timeout_failopen` and `partial_enrichment` name in `detail.sources` (comma-separated):
// the signal sources a verdict was decided without.
const signalSources = ['email', 'dns', 'rdap', 'device', 'lists', 'velocity', 'graph'];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object, examples?: Record<string, unknown>) => ({
  'application/json': examples === undefined ? { schema } : { schema, examples: exampleObjects(examples) },
});
const exampleObjects = (examples: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }]));
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

// Every response carries the request id; every metered response (all but /health) the rate-limit headers.
const requestIdHeader = { 'X-Request-Id': headerRef('XRequestId') };
const meteredHeaders = {
  ...requestIdHeader,
  'x-ratelimit-limit': headerRef('RateLimitLimit'),
  'x-ratelimit-remaining': headerRef('RateLimitRemaining'),
  'x-ratelimit-reset': headerRef('RateLimitReset'),
};
const ok = (description: string, schema: object) => ({ description, headers: meteredHeaders, content: json(schema) });
const errorResponse = (description: string, code: string, schema: object = ref('Error'), details?: object) => ({
  description,
  headers: meteredHeaders,
  content: json(schema, { [code]: { error: code, message: description, ...(details && { details }) } }),
});

const stringMap = (keyMax: number, values: object | boolean, description: string) => ({
  type: 'object',
  description,
  propertyNames: { type: 'string', minLength: 1, maxLength: keyMax },
  additionalProperties: values,
});

const signupExample = {
  event_type: 'signup',
  external_user_id: 'usr_1842',
  email: 'ada@example.org',
  ip: '203.0.113.7',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
  identity: { phone: '+15550100' },
  context: { plan: 'pro' },
};
const checkoutExample = {
  event_type: 'checkout_attempt',
  external_user_id: 'usr_1842',
  ip: '2001:db8::7',
  payment: { card_fingerprint: 'fp_9Xk2', card_funding: 'prepaid', card_country: 'US', amount: 4900, currency: 'USD' },
};
const storedEventExample = {
  id: 'evt_01J9Z8Q4R6V7W8X9Y0Z1A2B3C4',
  event_type: 'signup',
  verdict: 'review',
  reasons: [{ code: 'disposable_email' }, { code: 'identity_cluster', detail: { linked_accounts: 3 } }],
  policy_version: '2025-01-15.1',
  created_at: '2025-02-01T09:30:00Z',
  external_user_id: 'usr_1842',
};

const schemas = {
  VerdictRequest: {
    type: 'object',
    description:
      'A funnel moment to screen. Closed: an unknown top-level key is 400 `invalid_request`. ' +
      '`ip` is required for signup, trial_start and checkout_attempt, optional for trial_convert and (our choice) for login.',
    additionalProperties: false,
    required: ['event_type'],
    properties: {
      event_type: { type: 'string', enum: eventTypes, description: 'Decides which rules run and whether `ip` is required.' },
      external_user_id: {
        type: 'string',
        minLength: 1,
        maxLength: 256,
        description: "The caller's own user id; strongly recommended, the webhook names the user by it.",
      },
      email: {
        type: 'string',
        minLength: 3,
        maxLength: 320,
        pattern: '@',
        'x-error-message': 'must contain @',
        description: 'Sent as typed, never pre-filtered or normalised; its quality is judged by the engine.',
      },
      ip: {
        // Each branch typed, so that generators give `string` (untyped branches read as `unknown`).
        type: 'string',
        anyOf: [
          { type: 'string', format: 'ipv4' },
          { type: 'string', format: 'ipv6' },
        ],
        'x-error-message': 'must be an IPv4 or IPv6 address',
        description:
          "The end user's address, IPv4 or IPv6: required for signup, trial_start and checkout_attempt; elsewhere omit it when " +
          "you do not know it. Never your own server's address.",
        examples: ['203.0.113.7'],
      },
      user_agent: { type: 'string', maxLength: 1024, description: "The end user's User-Agent header, verbatim (up to 1024 characters)." },
      device_token: {
        type: 'string',
        maxLength: 4096,
        description: 'From POST /v1/device. Expired, tampered, cross-tenant or cross-mode tokens are silently dropped.',
      },
      identity: {
        ...stringMap(
          64,
          { type: 'string', maxLength: 512 },
          'Other identifiers (phone, wallet, ...). At most 20 entries; keys up to 64 characters, string values up to 512; unknown keys are stored and linked.',
        ),
        maxProperties: 20,
      },
      payment: ref('Payment'),
      context: { type: 'object', description: 'Free-form; stored and echoed, never validated, never used in a decision.' },
    },
    allOf: [
      {
        if: { properties: { event_type: { enum: eventTypesRequiringIp } }, required: ['event_type'] },
        then: { properties: { ip: { description: 'Required for this event type.' } }, required: ['ip'] },
      },
    ],
  },
  Payment: {
    type: 'object',
    description: 'Used for checkout_attempt, ignored on other event types. Open: unknown keys are accepted and ignored.',
    additionalProperties: true,
    properties: {
      card_fingerprint: {
        type: 'string',
        maxLength: 256,
        description: 'Stable per-card id from the payment provider; never a card number. Up to 256 characters.',
      },
      card_funding: {
        type: 'string',
        enum: ['credit', 'debit', 'prepaid', 'unknown'],
        description: 'Absent means unknown; unknown fires no rule.',
      },
      card_country: {
        type: 'string',
        pattern: '^[A-Za-z]{2}$',
        'x-error-message': 'must be a two-letter country code',
        description: 'ISO 3166-1 alpha-2, any case; stored lowercase.',
        examples: ['US'],
      },
      amount: {
        type: 'integer',
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Minor units; at most 2^53 - 1, so no value loses precision.',
      },
      currency: {
        type: 'string',
        pattern: '^[A-Za-z]{3}$',
        'x-error-message': 'must be a three-letter currency code',
        description: 'ISO 4217, any case; stored lowercase.',
        examples: ['usd'],
      },
    },
  },
  VerdictResponse: {
    type: 'object',
    required: ['id', 'verdict', 'reasons', 'policy_version'],
    properties: {
      id: { type: 'string', description: 'Event id: the join key for the webhook, GET /v1/events/{id} and feedback.' },
      verdict: {
        type: 'string',
        enum: verdicts,
        description: '`allow` proceed; `review` proceed and be ready to revoke; `block` stop with a generic error.',
      },
      reasons: { type: 'array', items: ref('Reason'), description: 'Order is not significant; often empty on allow.' },
      policy_version: { $ref: '#/components/schemas/PolicyVersion' },
      recommended_action: {
        type: 'string',
        examples: recommendedActions,
        description: 'Advice only, absent when there is none; today only on login. An open set (known values in `x-service-known-values`).',
      },
    },
    examples: [{ id: storedEventExample.id, verdict: 'allow', reasons: [], policy_version: '2025-01-15.1' }],
  },
  PolicyVersion: {
    type: 'string',
    pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}\\.[0-9]+$',
    'x-error-message': 'must be shaped <YYYY-MM-DD>.<n>',
    description: 'Version of the rules that decided: `<YYYY-MM-DD>.<n>`.',
    examples: ['2025-01-15.1'],
  },
  Reason: {
    type: 'object',
    required: ['code'],
    properties: {
      code: {
        type: 'string',
        examples: ['disposable_email'],
        description: 'An open set: treat an unknown code as informational, never punitive.',
      },
      detail: {
        type: 'object',
        description: 'Flat map of scalars specific to the code; informational only.',
        properties: {
          linked_accounts: { type: 'integer', description: 'On `identity_cluster`.' },
          attempts_10m: { type: 'integer', description: 'On `card_probe_pattern`.' },
          count: {
            type: 'integer',
            description: 'On every rule that compares against a threshold: the measured quantity (a count, or days).',
          },
          threshold: {
            type: 'integer',
            description: 'The policy value `count` was compared with (for a two-step rule, the step that fired).',
          },
          window_seconds: { type: 'integer', description: 'The window the count was taken over, where there is one.' },
          rule: { type: 'string', description: 'The policy entry that fired, e.g. `velocity_ip_signups.block_over`.' },
          sources: {
            type: 'string',
            examples: ['graph', 'dns,rdap'],
            description:
              'On `timeout_failopen` (ran past the deadline) and `partial_enrichment` (unavailable): the signal sources the verdict ' +
              'was decided without, comma-separated. An open set (known values in `x-service-known-values`).',
          },
        },
        additionalProperties: { type: ['string', 'number', 'boolean'] },
      },
    },
  },
  StoredEvent: {
    type: 'object',
    description: 'A judged event as stored at decision time (frozen in 0.7.0; fields may be added, so parse tolerantly).',
    required: ['id', 'event_type', 'verdict', 'reasons', 'policy_version', 'created_at'],
    properties: {
      id: { type: 'string' },
      event_type: { type: 'string', enum: eventTypes },
      verdict: { type: 'string', enum: verdicts },
      reasons: { type: 'array', items: ref('Reason') },
      policy_version: { $ref: '#/components/schemas/PolicyVersion' },
      created_at: { type: 'string', format: 'date-time', description: 'RFC 3339, UTC: the moment of judgement.' },
      external_user_id: { type: 'string', description: 'Present when sent at verdict time or attached later.' },
      recommended_action: { type: 'string', description: 'Additive field: the advice given with the verdict, when there was one.' },
      context: { type: 'object', description: 'Additive field: the `context` sent with the verdict call, echoed back as stored.' },
      review: {
        type: 'object',
        required: ['status'],
        description: 'Additive field, on `review` verdicts: the human resolution. `verdict` stays as judged.',
        properties: {
          status: { type: 'string', enum: ['pending', 'approved', 'denied'] },
          final_verdict: { type: 'string', enum: verdicts, description: '`block` after a denial, `allow` after an approval.' },
          resolved_at: { type: 'string', format: 'date-time' },
        },
      },
    },
    examples: [storedEventExample],
  },
  EventList: {
    type: 'object',
    required: ['events'],
    properties: {
      events: { type: 'array', items: ref('StoredEvent'), description: 'Newest first.' },
      next_cursor: { type: 'string', description: 'Opaque; present only while more results exist. Pass it back as `cursor`.' },
    },
  },
  EventListQuery: {
    type: 'object',
    description: 'Query string of GET /v1/events. Values arrive as strings and are coerced; unknown parameters are ignored.',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
      event_type: { type: 'string', enum: eventTypes, description: 'Exact match.' },
      verdict: { type: 'string', enum: verdicts, description: 'Exact match.' },
      cursor: { type: 'string', description: 'Opaque token: `next_cursor` of the previous page.' },
    },
  },
  FeedbackRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['subject', 'outcome'],
    properties: {
      subject: ref('FeedbackSubject'),
      outcome: {
        type: 'string',
        enum: ['confirmed_abuse', 'false_positive', 'chargeback'],
        description:
          '`confirmed_abuse` marks the linked cluster; `false_positive` suppresses the misfired pattern; `chargeback` records a dispute.',
      },
      note: { type: 'string', maxLength: 2000, description: "Free text for the caller's records." },
    },
  },
  FeedbackSubject: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'value'],
    properties: {
      kind: {
        type: 'string',
        enum: ['event_id', 'external_user_id', 'email'],
        description: 'A closed set: identifiers that cannot safely convict are never accepted.',
      },
      value: { type: 'string', minLength: 1, maxLength: 256 },
    },
  },
  AttachUserRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['external_user_id'],
    properties: { external_user_id: { type: 'string', minLength: 1, maxLength: 256, description: 'Write-once per event.' } },
  },
  DeviceRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['components'],
    properties: {
      components: {
        ...stringMap(
          64,
          true,
          'Component name to opaque value; keys up to 64 characters, at most 100 components, values nested at most 16 levels; ' +
            'the body up to 128 KiB (DEVICE_BODY_LIMIT_BYTES). A FingerprintJS `{value, duration}` component is hashed by its value alone. ' +
            'Hashed server-side, never stored raw.',
        ),
        maxProperties: 100,
      },
    },
  },
  DeviceResponse: {
    type: 'object',
    required: ['device_token', 'expires_at'],
    properties: {
      device_token: { type: 'string', description: 'Signed, short-lived; forward it to your backend for the verdict call.' },
      expires_at: {
        type: 'string',
        format: 'date-time',
        description: 'RFC 3339. Tokens live 900 seconds by default (our choice; operator-configurable).',
      },
    },
  },
  Ok: {
    type: 'object',
    required: ['ok'],
    properties: { ok: { const: true } },
    examples: [{ ok: true }],
  },
  FeedbackResponse: {
    type: 'object',
    required: ['ok'],
    description: '`{ok: true}`; an identical (subject, outcome) repost, deduplicated, also says `duplicate: true` (additive field).',
    properties: {
      ok: { const: true },
      duplicate: {
        type: 'boolean',
        description: 'Additive field: present, and true, only when this report repeated one already recorded.',
      },
    },
    examples: [{ ok: true }, { ok: true, duplicate: true }],
  },
  Error: {
    type: 'object',
    description:
      'Every error response. `error` is an open set (known values in `x-service-known-values`); `message` is for logs, never for end users.',
    required: ['error', 'message'],
    properties: {
      error: { type: 'string', examples: errorCodes },
      message: { type: 'string' },
      details: {
        type: 'object',
        description: 'Optional; on 400 `invalid_request` it carries `issues`.',
        properties: { issues: { type: 'array', items: ref('ValidationIssue') } },
      },
    },
  },
  ValidationIssue: {
    type: 'object',
    required: ['path', 'message'],
    properties: {
      path: { type: 'string', description: 'JSON Pointer (RFC 6901) into the body; empty for the body itself.', examples: ['/ip'] },
      message: { type: 'string', examples: ['is required'] },
    },
  },
  InvalidRequestError: {
    description: 'A 400: `details.issues` lists one `{path, message}` per failed field.',
    allOf: [
      ref('Error'),
      {
        type: 'object',
        required: ['details'],
        properties: {
          error: { const: 'invalid_request' },
          details: { type: 'object', required: ['issues'], properties: { issues: { type: 'array', items: ref('ValidationIssue') } } },
        },
      },
    ],
  },
  Health: {
    type: 'object',
    description: 'Dependency health: 200 when every check is up, 503 (as HealthUnavailable) when any is down.',
    required: ['status', 'checks'],
    properties: {
      status: { type: 'string', enum: ['ok', 'unavailable'] },
      checks: {
        type: 'object',
        required: ['postgres', 'neo4j', 'redis'],
        properties: { postgres: ref('HealthCheck'), neo4j: ref('HealthCheck'), redis: ref('HealthCheck') },
      },
    },
  },
  HealthUnavailable: {
    description: 'The 503 body: the health report plus `error: internal` and a `message`, as every error response carries.',
    allOf: [
      ref('Health'),
      {
        type: 'object',
        required: ['error', 'message'],
        properties: { status: { const: 'unavailable' }, error: { const: 'internal' }, message: { type: 'string' } },
      },
    ],
  },
  HealthCheck: {
    type: 'object',
    required: ['status', 'latency_ms'],
    properties: {
      status: { type: 'string', enum: ['up', 'down'] },
      latency_ms: { type: 'number', minimum: 0 },
      error: { type: 'string', description: 'Why the dependency is down (short, no secrets).' },
    },
  },
  ReviewResolvedWebhook: {
    type: 'object',
    description: 'Sent when a human resolves a queued review. Resolve the account by `external_user_id` first, then `email`.',
    required: ['type', 'event_id', 'resolution', 'final_verdict', 'resolved_at'],
    properties: {
      type: { type: 'string', const: 'review.resolved', description: 'Switch on it: other types will come.' },
      event_id: { type: 'string', description: 'The `id` of the original verdict response.' },
      resolution: { type: 'string', enum: ['approved', 'denied'], description: '`approved`: nothing to do; `denied`: revoke the account.' },
      final_verdict: { type: 'string', enum: verdicts, description: 'A denial turns the original `review` into `block`.' },
      resolved_at: { type: 'string', format: 'date-time' },
      external_user_id: { type: 'string', description: 'Bound at verdict time or later by PATCH, as of the resolution.' },
      email: { type: 'string', description: "The original event's email, when one was sent." },
      delivery_id: { type: 'string', description: "Additive field: this delivery's id, the same on every retry (deduplicate on it)." },
      policy_version: { $ref: '#/components/schemas/PolicyVersion' },
    },
  },
};

const headers = {
  XRequestId: { description: 'Our id for this request; quote it when reporting a problem.', schema: { type: 'string' } },
  RateLimitLimit: {
    description: 'Requests allowed per window (600 per 60-second fixed window, per API key).',
    schema: { type: 'integer' },
  },
  RateLimitRemaining: { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'Seconds until the current window resets (not an epoch time).', schema: { type: 'integer', minimum: 0 } },
  RetryAfter: {
    description: 'Seconds to wait before retrying. Keep the same Idempotency-Key on the retry.',
    schema: { type: 'integer', minimum: 0 },
  },
};

const responses = {
  InvalidRequest: errorResponse(
    'Invalid request: the body fails validation (one issue per failed field), is not JSON, is not application/json, exceeds 64 KiB, ' +
      'holds a NUL or an unpaired surrogate in any string or key, nests deeper than 32 levels, or cannot be decoded with its Content-Encoding.',
    'invalid_request',
    ref('InvalidRequestError'),
    { issues: [{ path: '/ip', message: 'is required' }] },
  ),
  Unauthorized: errorResponse('Key missing, malformed, unknown, revoked, or of the wrong kind.', 'unauthorized'),
  NotFound: errorResponse('No such route, or nothing with that id for this tenant and mode (never 403).', 'not_found'),
  IdempotencyConflict: errorResponse(
    'This Idempotency-Key was already used with a different body. Retrying it never succeeds.',
    'idempotency_conflict',
  ),
  Conflict: errorResponse('The event is already bound to a different external_user_id. Not retryable.', 'conflict'),
  RateLimited: {
    description: 'Over the rate limit; the request was not processed (nothing stored or counted).',
    headers: { ...meteredHeaders, 'retry-after': headerRef('RetryAfter') },
    content: json(ref('Error'), { rate_limited: { error: 'rate_limited', message: 'Too many requests.' } }),
  },
  Internal: errorResponse('Service fault before a decision; retryable.', 'internal'),
  MalformedPath: errorResponse(
    'The URL path is not valid percent-encoded UTF-8 (for example `%FF` or a lone `%`).',
    'invalid_request',
    ref('InvalidRequestError'),
    { issues: [{ path: '', message: 'the URL path is not valid percent-encoded UTF-8' }] },
  ),
};

// The flows a verdict starts: read the stored event, bind a user id to it, report an outcome
// about it (OpenAPI links; the fuzzer's stateful phase walks them).
const eventIdFromVerdict = '$response.body#/id';
const verdictLinks = {
  GetEvent: { operationId: 'getEvent', parameters: { id: eventIdFromVerdict }, description: 'The stored event this verdict created.' },
  AttachUser: { operationId: 'attachUser', parameters: { id: eventIdFromVerdict }, description: 'Bind your user id to the event.' },
  ReportOutcome: {
    operationId: 'recordFeedback',
    description: 'Report an outcome about the event by its id.',
    requestBody: { subject: { kind: 'event_id', value: eventIdFromVerdict } },
  },
};
const attachLinks = {
  ReportOutcomeForUser: {
    operationId: 'recordFeedback',
    description: 'Report an outcome about the account just bound.',
    requestBody: { subject: { kind: 'external_user_id', value: '$request.body#/external_user_id' } },
  },
};

const commonErrors = { 401: responseRef('Unauthorized'), 429: responseRef('RateLimited'), 500: responseRef('Internal') };
const eventId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description:
    'An event id returned by the verdict endpoint. A path that is not valid percent-encoded UTF-8 is 400; an id no event can have is 404.',
};
const secret = [{ secretKey: [] }];

const paths = {
  '/v1/verdict': {
    post: {
      operationId: 'screenEvent',
      tags: ['verdicts'],
      summary: 'Screen an event',
      security: secret,
      description: 'Call inline, before committing the action. The engine fails open: a rules fault yields `allow` with no reasons.',
      parameters: [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description:
            'Up to 255 characters; a longer or empty value is ignored as if absent. Same key and identical raw body within 24 h ' +
            'replays the original response verbatim; a different body is 409. Ignored on every other endpoint.',
        },
      ],
      requestBody: { required: true, content: json(ref('VerdictRequest'), { signup: signupExample, checkout: checkoutExample }) },
      responses: {
        200: { ...ok('The decision.', ref('VerdictResponse')), links: verdictLinks },
        400: responseRef('InvalidRequest'),
        409: responseRef('IdempotencyConflict'),
        ...commonErrors,
      },
    },
  },
  '/v1/events': {
    get: {
      operationId: 'listEvents',
      tags: ['events'],
      summary: 'List stored events, newest first',
      security: secret,
      description:
        "Only the calling key's tenant and mode. An invalid query value (limit outside 1..100, unknown event_type or verdict, " +
        'a cursor that is not a `next_cursor` of a previous page) is 400.',
      parameters: [{ name: 'query', in: 'query', style: 'form', explode: true, schema: ref('EventListQuery') }],
      responses: { 200: ok('A page of events.', ref('EventList')), 400: responseRef('InvalidRequest'), ...commonErrors },
    },
  },
  '/v1/events/{id}': {
    get: {
      operationId: 'getEvent',
      tags: ['events'],
      summary: 'Retrieve a stored event',
      security: secret,
      parameters: [eventId],
      responses: {
        200: ok('The event as stored at decision time.', ref('StoredEvent')),
        400: responseRef('MalformedPath'),
        404: responseRef('NotFound'),
        ...commonErrors,
      },
    },
    patch: {
      operationId: 'attachUser',
      tags: ['events'],
      summary: 'Attach your user id to an event (write-once)',
      security: secret,
      description: 'Replaying the bound value answers 200 again; a different value is 409 `conflict`.',
      parameters: [eventId],
      requestBody: { required: true, content: json(ref('AttachUserRequest')) },
      responses: {
        200: { ...ok('Bound (or already bound to this value).', ref('Ok')), links: attachLinks },
        400: responseRef('InvalidRequest'),
        404: responseRef('NotFound'),
        409: responseRef('Conflict'),
        ...commonErrors,
      },
    },
  },
  '/v1/feedback': {
    post: {
      operationId: 'recordFeedback',
      tags: ['feedback'],
      summary: 'Report a real-world outcome',
      security: secret,
      description: 'Propagates across the linked identity cluster. An identical (subject, outcome) repost is deduplicated and answers 200.',
      requestBody: { required: true, content: json(ref('FeedbackRequest')) },
      responses: {
        200: ok('Recorded, or deduplicated (`duplicate: true`).', ref('FeedbackResponse')),
        400: responseRef('InvalidRequest'),
        404: responseRef('NotFound'),
        ...commonErrors,
      },
    },
  },
  '/v1/device': {
    post: {
      operationId: 'issueDeviceToken',
      tags: ['devices'],
      summary: 'Exchange fingerprint components for a device token',
      description:
        'Browser-side, cross-origin (the only CORS-enabled endpoint) with a publishable key; a secret key is 401. ' +
        'Collect the token close to the screened action: it lives 900 seconds by default.',
      security: [{ publishableKey: [] }],
      requestBody: { required: true, content: json(ref('DeviceRequest')) },
      responses: { 200: ok('A signed device token.', ref('DeviceResponse')), 400: responseRef('InvalidRequest'), ...commonErrors },
    },
  },
  '/v1/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      tags: ['service'],
      summary: 'This document',
      security: [],
      description: 'No key needed. Metered like every route but /health, in the per-IP bucket.',
      responses: { 200: ok('The OpenAPI document.', { type: 'object' }), 429: responseRef('RateLimited'), 500: responseRef('Internal') },
    },
  },
  '/health': {
    get: {
      operationId: 'getHealth',
      tags: ['service'],
      summary: 'Dependency health',
      security: [],
      description: 'Unauthenticated and unmetered. Checks Postgres, Neo4j and Redis in parallel with short timeouts.',
      responses: {
        200: { description: 'All dependencies up.', headers: requestIdHeader, content: json(ref('Health')) },
        503: {
          description: 'A dependency is down (`internal`).',
          headers: requestIdHeader,
          content: json(ref('HealthUnavailable')),
        },
      },
    },
  },
};

const webhooks = {
  'review.resolved': {
    post: {
      operationId: 'reviewResolved',
      tags: ['webhooks'],
      summary: 'A queued review was resolved',
      description:
        'POSTed to the URL configured in the dashboard. Retried with backoff until a 2xx, so receivers must be idempotent ' +
        '(revoking an already revoked account is a no-op) and answer quickly.',
      security: [],
      parameters: [
        {
          name: 'Service-Signature',
          in: 'header',
          required: true,
          schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}( sha256=[0-9a-f]{64})*$' },
          description:
            '`sha256=<hex>`: HMAC-SHA256 of the exact raw body keyed with the webhook secret (`whsec_...`). Verify before parsing JSON. ' +
            "During a secret rotation the header carries one signature per valid secret, space-separated, the current secret's first: accept the body when any verifies.",
        },
        {
          name: 'Doorman-Delivery-Id',
          in: 'header',
          required: true,
          schema: { type: 'string' },
          description: 'The delivery, the same on every retry.',
        },
        {
          name: 'Doorman-Delivery-Attempt',
          in: 'header',
          required: true,
          schema: { type: 'integer', minimum: 1 },
          description: '1 for the first attempt.',
        },
      ],
      requestBody: { required: true, content: json(ref('ReviewResolvedWebhook')) },
      responses: { '2XX': { description: 'Delivered. Anything else is retried.' } },
    },
  },
};

export const openApiDocument: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Doorman',
    version: '0.7.0',
    summary: 'Abuse screening for signups, trials, checkouts and logins.',
    description:
      'Returns a verdict (allow, review, block) with reason codes for each screened event; enforcement is always yours. ' +
      'Tenant and mode (live or test) come from the API key alone. Request bodies are JSON, at most 64 KiB (larger is 400 `invalid_request`). ' +
      'No string or key anywhere in a request may hold a NUL (U+0000) or an unpaired UTF-16 surrogate, and JSON may nest at most 32 levels ' +
      '(400 `invalid_request` naming each path); bodies may be sent with Content-Encoding identity, gzip, deflate or br. ' +
      'Rate limit: 600 requests per 60-second fixed window per key; requests without a plausible key share a per-IP bucket; /health is exempt. ' +
      'Evolution is additive: ignore unknown fields and unknown codes.',
    license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
  },
  servers: [
    {
      url: '{base_url}',
      description: 'Your Doorman deployment.',
      variables: { base_url: { default: 'http://localhost:8080', description: 'Where the service listens.' } },
    },
  ],
  tags: [
    { name: 'verdicts', description: 'Screen funnel events.' },
    { name: 'events', description: 'Stored events and their verdicts.' },
    { name: 'feedback', description: 'Real-world outcomes that teach the identity graph.' },
    { name: 'devices', description: 'Browser-side device tokens.' },
    { name: 'service', description: 'Health and this document.' },
    { name: 'webhooks', description: 'What Doorman sends to you.' },
  ],
  paths,
  webhooks,
  components: {
    schemas,
    responses,
    headers,
    securitySchemes: {
      secretKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'Secret key `sk_live_...` or `sk_test_...`: server-side only; every route but /v1/device.',
      },
      publishableKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'Publishable key `pk_live_...` or `pk_test_...`: only POST /v1/device.',
      },
    },
  },
  'x-service-known-values': {
    error_codes: errorCodes,
    reason_codes: reasonCodes,
    recommended_actions: recommendedActions,
    signal_sources: signalSources,
  },
};
