// Table tests of the request validator: every validation rule of the contract, with the path and message it reports.
import { expect } from 'chai';
import { openApiDocument } from '../../src/contract/openapi.js';
import {
  createRequestValidator,
  knownErrorCodes,
  knownReasonCodes,
  knownRecommendedActions,
  type ValidationIssue,
} from '../../src/contract/request-validator.js';

const validator = createRequestValidator();
const validate = (schema: string, value: unknown) => validator.validate(schema, value);

const aSignup = (fields: Record<string, unknown> = {}) => ({ event_type: 'signup', ip: '203.0.113.7', ...fields });
const aCheckout = (payment: unknown) => ({ event_type: 'checkout_attempt', ip: '203.0.113.7', payment });
const aFeedback = (fields: Record<string, unknown> = {}) => ({
  subject: { kind: 'email', value: 'ada@example.org' },
  outcome: 'confirmed_abuse',
  ...fields,
});
const without = (value: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));
const long = (length: number) => 'x'.repeat(length);

const eventTypeMessage = 'must be one of: signup, trial_start, trial_convert, checkout_attempt, login';

describe('the request validator', () => {
  describe('accepts valid requests', () => {
    const valid: Array<[string, string, unknown]> = [
      ['a minimal signup', 'VerdictRequest', aSignup()],
      [
        'a signup with every field',
        'VerdictRequest',
        aSignup({
          external_user_id: 'usr_1',
          email: 'ada@example.org',
          user_agent: 'Mozilla/5.0',
          device_token: 'dt_1',
          identity: { phone: '+15550100', [long(64)]: long(512) },
          context: { anything: [1, { deep: null }] },
        }),
      ],
      ['a trial_start', 'VerdictRequest', { event_type: 'trial_start', ip: '198.51.100.1' }],
      ['a trial_convert without ip', 'VerdictRequest', { event_type: 'trial_convert' }],
      ['a login without ip', 'VerdictRequest', { event_type: 'login', external_user_id: 'usr_1' }],
      ['a login with ip', 'VerdictRequest', { event_type: 'login', ip: '203.0.113.9' }],
      [
        'a full checkout',
        'VerdictRequest',
        aCheckout({
          card_fingerprint: 'fp_1',
          card_funding: 'prepaid',
          card_country: 'us',
          amount: 0,
          currency: 'EUR',
        }),
      ],
      ['a payment with unknown keys', 'VerdictRequest', aCheckout({ brand: 'visa', nested: { x: 1 } })],
      ['an IPv6 address', 'VerdictRequest', aSignup({ ip: '2001:db8::1' })],
      ['an IPv4-mapped IPv6 address', 'VerdictRequest', aSignup({ ip: '::ffff:1.2.3.4' })],
      ['an email of 3 characters', 'VerdictRequest', aSignup({ email: 'a@b' })],
      ['an email of 320 characters', 'VerdictRequest', aSignup({ email: `${long(300)}@${long(19)}` })],
      ['feedback on an email', 'FeedbackRequest', aFeedback()],
      [
        'feedback with a note',
        'FeedbackRequest',
        aFeedback({
          subject: { kind: 'event_id', value: long(256) },
          outcome: 'chargeback',
          note: long(2000),
        }),
      ],
      [
        'feedback on an external user id',
        'FeedbackRequest',
        aFeedback({ subject: { kind: 'external_user_id', value: 'u' }, outcome: 'false_positive' }),
      ],
      ['an attach of 256 characters', 'AttachUserRequest', { external_user_id: long(256) }],
      ['a device request', 'DeviceRequest', { components: { [long(64)]: { any: ['thing'] }, screen: 1920 } }],
      ['a device request with no components', 'DeviceRequest', { components: {} }],
      ['an empty list query', 'EventListQuery', {}],
      [
        'a full list query, as strings',
        'EventListQuery',
        { limit: '100', event_type: 'login', verdict: 'block', cursor: 'abc', other: 'x' },
      ],
    ];
    for (const [name, schema, value] of valid) {
      it(`accepts ${name}`, () => expect(validate(schema, value)).to.deep.equal([]));
    }
  });

  describe('rejects each broken rule with its path and message', () => {
    const invalid: Array<[string, string, unknown, ValidationIssue]> = [
      ['a body that is not an object', 'VerdictRequest', ['signup'], { path: '', message: 'must be an object' }],
      ['a missing event_type', 'VerdictRequest', { ip: '203.0.113.7' }, { path: '/event_type', message: 'is required' }],
      ['an unknown event_type', 'VerdictRequest', aSignup({ event_type: 'purchase' }), { path: '/event_type', message: eventTypeMessage }],
      ['an unknown top-level key', 'VerdictRequest', aSignup({ foo: 1 }), { path: '/foo', message: 'unknown field' }],
      ['a signup without ip', 'VerdictRequest', { event_type: 'signup' }, { path: '/ip', message: 'is required' }],
      ['a trial_start without ip', 'VerdictRequest', { event_type: 'trial_start' }, { path: '/ip', message: 'is required' }],
      ['a checkout_attempt without ip', 'VerdictRequest', { event_type: 'checkout_attempt' }, { path: '/ip', message: 'is required' }],
      ['a truncated IPv4 address', 'VerdictRequest', aSignup({ ip: '1.2.3' }), { path: '/ip', message: 'must be an IPv4 or IPv6 address' }],
      [
        'a host name for ip',
        'VerdictRequest',
        { event_type: 'login', ip: 'localhost' },
        { path: '/ip', message: 'must be an IPv4 or IPv6 address' },
      ],
      ['a numeric ip', 'VerdictRequest', aSignup({ ip: 1234 }), { path: '/ip', message: 'must be a string' }],
      ['an email without @', 'VerdictRequest', aSignup({ email: 'ada.example.org' }), { path: '/email', message: 'must contain @' }],
      [
        'an email under 3 characters',
        'VerdictRequest',
        aSignup({ email: '@b' }),
        { path: '/email', message: 'must be at least 3 characters' },
      ],
      [
        'an email over 320 characters',
        'VerdictRequest',
        aSignup({ email: `${long(300)}@${long(20)}` }),
        { path: '/email', message: 'must be at most 320 characters' },
      ],
      ['a non-string user_agent', 'VerdictRequest', aSignup({ user_agent: 5 }), { path: '/user_agent', message: 'must be a string' }],
      [
        'a non-string device_token',
        'VerdictRequest',
        aSignup({ device_token: {} }),
        { path: '/device_token', message: 'must be a string' },
      ],
      [
        'an empty external_user_id',
        'VerdictRequest',
        aSignup({ external_user_id: '' }),
        { path: '/external_user_id', message: 'must not be empty' },
      ],
      [
        'an external_user_id over 256',
        'VerdictRequest',
        aSignup({ external_user_id: long(257) }),
        { path: '/external_user_id', message: 'must be at most 256 characters' },
      ],
      [
        'an identity that is not a map',
        'VerdictRequest',
        aSignup({ identity: 'phone' }),
        { path: '/identity', message: 'must be an object' },
      ],
      [
        'an identity key over 64',
        'VerdictRequest',
        aSignup({ identity: { [long(65)]: 'v' } }),
        { path: `/identity/${long(65)}`, message: 'key must be at most 64 characters' },
      ],
      [
        'an empty identity key',
        'VerdictRequest',
        aSignup({ identity: { '': 'v' } }),
        { path: '/identity/', message: 'key must not be empty' },
      ],
      [
        'an identity value over 512',
        'VerdictRequest',
        aSignup({ identity: { phone: long(513) } }),
        { path: '/identity/phone', message: 'must be at most 512 characters' },
      ],
      [
        'a non-string identity value',
        'VerdictRequest',
        aSignup({ identity: { phone: 5550100 } }),
        { path: '/identity/phone', message: 'must be a string' },
      ],
      [
        'an identity key with / and ~',
        'VerdictRequest',
        aSignup({ identity: { 'a/b~c': 1 } }),
        { path: '/identity/a~1b~0c', message: 'must be a string' },
      ],
      ['a payment that is not an object', 'VerdictRequest', aCheckout('card'), { path: '/payment', message: 'must be an object' }],
      [
        'an unknown card_funding',
        'VerdictRequest',
        aCheckout({ card_funding: 'charge' }),
        { path: '/payment/card_funding', message: 'must be one of: credit, debit, prepaid, unknown' },
      ],
      [
        'a three-letter card_country',
        'VerdictRequest',
        aCheckout({ card_country: 'USA' }),
        { path: '/payment/card_country', message: 'must be a two-letter country code' },
      ],
      [
        'a non-ASCII card_country',
        'VerdictRequest',
        aCheckout({ card_country: 'Ü1' }),
        { path: '/payment/card_country', message: 'must be a two-letter country code' },
      ],
      ['a negative amount', 'VerdictRequest', aCheckout({ amount: -1 }), { path: '/payment/amount', message: 'must be at least 0' }],
      ['a fractional amount', 'VerdictRequest', aCheckout({ amount: 4.5 }), { path: '/payment/amount', message: 'must be an integer' }],
      ['a string amount', 'VerdictRequest', aCheckout({ amount: '100' }), { path: '/payment/amount', message: 'must be an integer' }],
      [
        'a two-letter currency',
        'VerdictRequest',
        aCheckout({ currency: 'US' }),
        { path: '/payment/currency', message: 'must be a three-letter currency code' },
      ],
      ['a context that is not an object', 'VerdictRequest', aSignup({ context: 'x' }), { path: '/context', message: 'must be an object' }],
      ['feedback without subject', 'FeedbackRequest', without(aFeedback(), 'subject'), { path: '/subject', message: 'is required' }],
      ['feedback without outcome', 'FeedbackRequest', without(aFeedback(), 'outcome'), { path: '/outcome', message: 'is required' }],
      [
        'an unknown outcome',
        'FeedbackRequest',
        aFeedback({ outcome: 'fraud' }),
        { path: '/outcome', message: 'must be one of: confirmed_abuse, false_positive, chargeback' },
      ],
      [
        'a subject kind outside the closed set',
        'FeedbackRequest',
        aFeedback({ subject: { kind: 'ip', value: '203.0.113.7' } }),
        { path: '/subject/kind', message: 'must be one of: event_id, external_user_id, email' },
      ],
      [
        'a subject without value',
        'FeedbackRequest',
        aFeedback({ subject: { kind: 'email' } }),
        { path: '/subject/value', message: 'is required' },
      ],
      [
        'an empty subject value',
        'FeedbackRequest',
        aFeedback({ subject: { kind: 'email', value: '' } }),
        { path: '/subject/value', message: 'must not be empty' },
      ],
      [
        'a subject value over 256',
        'FeedbackRequest',
        aFeedback({ subject: { kind: 'email', value: long(257) } }),
        { path: '/subject/value', message: 'must be at most 256 characters' },
      ],
      [
        'an unknown key in the subject',
        'FeedbackRequest',
        aFeedback({ subject: { kind: 'email', value: 'a@b', extra: 1 } }),
        { path: '/subject/extra', message: 'unknown field' },
      ],
      [
        'a note over 2000',
        'FeedbackRequest',
        aFeedback({ note: long(2001) }),
        { path: '/note', message: 'must be at most 2000 characters' },
      ],
      ['an unknown key in feedback', 'FeedbackRequest', aFeedback({ priority: 'high' }), { path: '/priority', message: 'unknown field' }],
      ['an attach without external_user_id', 'AttachUserRequest', {}, { path: '/external_user_id', message: 'is required' }],
      ['an empty attach', 'AttachUserRequest', { external_user_id: '' }, { path: '/external_user_id', message: 'must not be empty' }],
      [
        'an attach over 256',
        'AttachUserRequest',
        { external_user_id: long(257) },
        { path: '/external_user_id', message: 'must be at most 256 characters' },
      ],
      [
        'an unknown key on attach',
        'AttachUserRequest',
        { external_user_id: 'u', email: 'a@b' },
        { path: '/email', message: 'unknown field' },
      ],
      ['a device request without components', 'DeviceRequest', {}, { path: '/components', message: 'is required' }],
      ['components that are not a map', 'DeviceRequest', { components: [] }, { path: '/components', message: 'must be an object' }],
      [
        'a component key over 64',
        'DeviceRequest',
        { components: { [long(65)]: 1 } },
        { path: `/components/${long(65)}`, message: 'key must be at most 64 characters' },
      ],
      [
        'an unknown key on a device request',
        'DeviceRequest',
        { components: {}, tenant: 't' },
        { path: '/tenant', message: 'unknown field' },
      ],
      ['a list limit of 0', 'EventListQuery', { limit: '0' }, { path: '/limit', message: 'must be at least 1' }],
      ['a list limit over 100', 'EventListQuery', { limit: '101' }, { path: '/limit', message: 'must be at most 100' }],
      ['a list limit that is not a number', 'EventListQuery', { limit: 'ten' }, { path: '/limit', message: 'must be an integer' }],
      [
        'a list filter on an unknown verdict',
        'EventListQuery',
        { verdict: 'maybe' },
        { path: '/verdict', message: 'must be one of: allow, review, block' },
      ],
      [
        'a list filter on an unknown event type',
        'EventListQuery',
        { event_type: 'purchase' },
        { path: '/event_type', message: eventTypeMessage },
      ],
    ];
    for (const [name, schema, value, issue] of invalid) {
      it(`rejects ${name}`, () => expect(validate(schema, value)).to.deep.equal([issue]));
    }
  });

  it('lists every failure at once, one issue per field', () => {
    const issues = validate('VerdictRequest', {
      event_type: 'checkout_attempt',
      email: 'x',
      bogus: true,
      identity: { phone: 1 },
      payment: { amount: -5, currency: 'euro', brand: 'visa' },
    });
    expect(issues).to.have.deep.members([
      { path: '/bogus', message: 'unknown field' },
      { path: '/ip', message: 'is required' },
      { path: '/email', message: 'must be at least 3 characters' },
      { path: '/identity/phone', message: 'must be a string' },
      { path: '/payment/amount', message: 'must be at least 0' },
      { path: '/payment/currency', message: 'must be a three-letter currency code' },
    ]);
    expect(issues).to.have.lengthOf(6);
  });

  it('reports a field that breaks two rules once', () => {
    expect(validate('VerdictRequest', aSignup({ email: 'x' }))).to.deep.equal([
      { path: '/email', message: 'must be at least 3 characters' },
    ]);
  });

  it('coerces the list query in place and fills the default limit', () => {
    const query: Record<string, unknown> = { limit: '25' };
    expect(validate('EventListQuery', query)).to.deep.equal([]);
    expect(query.limit).to.equal(25);
    const empty: Record<string, unknown> = {};
    validate('EventListQuery', empty);
    expect(empty.limit).to.equal(50);
  });

  it('does not coerce bodies', () => {
    expect(validate('AttachUserRequest', { external_user_id: 42 })).to.deep.equal([
      { path: '/external_user_id', message: 'must be a string' },
    ]);
  });

  it('refuses a schema name the document does not have', () => {
    expect(() => validate('NoSuchSchema', {})).to.throw(/NoSuchSchema/);
  });

  it("accepts the document's own request examples", () => {
    const operation = (openApiDocument.paths as Record<string, Record<string, any>>)['/v1/verdict']!.post;
    const examples = operation.requestBody.content['application/json'].examples as Record<string, { value: unknown }>;
    for (const { value } of Object.values(examples)) expect(validate('VerdictRequest', value)).to.deep.equal([]);
  });

  it('validates response shapes too, for tests of the API', () => {
    const schemas = (openApiDocument.components as { schemas: Record<string, { examples?: unknown[] }> }).schemas;
    for (const name of ['VerdictResponse', 'StoredEvent', 'Ok']) {
      for (const example of schemas[name]!.examples ?? []) expect(validate(name, example), name).to.deep.equal([]);
    }
    expect(validate('VerdictResponse', { id: 'evt_1', verdict: 'maybe', reasons: [], policy_version: '2025-01-15' })).to.deep.equal([
      { path: '/verdict', message: 'must be one of: allow, review, block' },
      { path: '/policy_version', message: 'must be shaped <YYYY-MM-DD>.<n>' },
    ]);
  });

  it('tells a healthy report from an unavailable one', () => {
    const up = { status: 'up', latency_ms: 2 };
    const down = { status: 'down', latency_ms: 1000, error: 'connect ECONNREFUSED' };
    expect(validate('Health', { status: 'ok', checks: { postgres: up, neo4j: up, redis: up } })).to.deep.equal([]);
    const unavailable = { status: 'unavailable', checks: { postgres: up, neo4j: down, redis: up } };
    expect(validate('HealthUnavailable', { ...unavailable, error: 'internal', message: 'neo4j is down' })).to.deep.equal([]);
    expect(validate('HealthUnavailable', unavailable)).to.deep.equal([
      { path: '/error', message: 'is required' },
      { path: '/message', message: 'is required' },
    ]);
  });

  it('exports the known codes from the document', () => {
    expect(knownErrorCodes).to.include.members(['invalid_request', 'rate_limited', 'internal']);
    expect(knownReasonCodes).to.include.members(['tor_exit', 'cluster_chargeback']);
    expect(knownRecommendedActions).to.deep.equal(['challenge', 'hold']);
  });
});
