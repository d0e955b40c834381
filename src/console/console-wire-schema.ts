// The console API's wire in one JSON Schema document (2020-12): every body and query string
// /console/api takes, and every JSON body it answers with, as the browser console and the server
// exchange them today (snake_case, except the graph's camelCase facts). Not part of the public
// contract. It is the one source of truth for three things:
//   - requests are checked by Ajv when they arrive (console-schemas.ts);
//   - `npm run generate:console-types` (scripts/generate-console-types.mjs) writes the TypeScript
//     type of every definition into generated/console-wire.ts, which the routes and use cases
//     here return and the browser console (console/) reads, so a field that one side renames
//     fails to compile on the other; `npm run check:console-types` (run by the tests too) fails
//     when that file is stale;
//   - test/console/ checks the routes' real answers against the response schemas.
// Objects are closed (additionalProperties: false) unless the data is open by nature (signals,
// context, a query's rows): a field the server adds or renames without this file fails the tests.
// Pure data and a few helpers: the generator imports it with tsx, the server at startup.

// A schema is plain JSON data: the generator and Ajv read it as written.
export type Schema = { [keyword: string]: unknown };

const ref = (name: string): Schema => ({ $ref: `#/$defs/${name}` });
const orNull = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const list = (items: Schema): Schema => ({ type: 'array', items });
// A closed object: the first map's properties are required, the second's optional.
const closed = (required: Record<string, Schema>, optional: Record<string, Schema> = {}, description?: string): Schema => ({
  type: 'object',
  ...(description && { description }),
  additionalProperties: false,
  required: Object.keys(required),
  properties: { ...required, ...optional },
});
// An object whose keys are data (a map); its values may be anything JSON unless given.
const open = (description: string, values?: Schema): Schema => ({
  type: 'object',
  description,
  ...(values && { additionalProperties: values }),
});

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const num: Schema = { type: 'number' };
const bool: Schema = { type: 'boolean' };
const yes: Schema = { const: true };
const time: Schema = { type: 'string', format: 'date-time' };
// Epoch milliseconds, as the graph keeps times.
const epochMs: Schema = { type: 'number', description: "Epoch milliseconds (the graph's time)." };
const text = (maxLength: number, minLength = 1): Schema => ({ type: 'string', minLength, maxLength });
const mode: Schema = { enum: ['live', 'test'] };
const eventTypeFilter: Schema = { enum: ['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'] };

const WINDOWS = ['today', 'yesterday', 'last_week'];
// One value per window of the overview's comparison.
const byWindow = (values: Schema): Schema => closed(Object.fromEntries(WINDOWS.map((w) => [w, values])));

// The console's row of an event: the public StoredEvent plus the email (the console is the
// tenant's own). Its detail adds what the request carried (EventDetail.event).
const EVENT_ROW_REQUIRED = {
  id: str,
  event_type: str,
  verdict: ref('Verdict'),
  reasons: list(ref('Reason')),
  policy_version: str,
  created_at: time,
};
const EVENT_ROW_OPTIONAL = {
  external_user_id: str,
  recommended_action: str,
  context: open('The `context` sent with the verdict call, as stored.'),
  review: closed({ status: ref('ReviewStatus') }, { final_verdict: ref('FinalVerdict'), resolved_at: time }),
  email: str,
};

// The tenant's own saved query (from the Cypher page) and a reviewed one (cypher/analyst/).
const QUERY_INFO = { id: str, description: str, parameters: list(closed({ name: str, hint: str })), returns: str };

const RESULT = {
  columns: list(str),
  rows: list(open("One row: column name to value (nodes, paths and maps as the driver's JSON).")),
  truncated: bool,
  ms: num,
};

export const CONSOLE_WIRE_ID = 'doorman:console-wire';

export const CONSOLE_WIRE = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: CONSOLE_WIRE_ID,
  $defs: {
    // ---- Requests: bodies and query strings (validated by console-schemas.ts). ----
    SignInBody: {
      type: 'object',
      additionalProperties: false,
      required: ['email', 'password'],
      properties: { email: text(320), password: text(256) },
    },
    WelcomeBody: {
      type: 'object',
      additionalProperties: false,
      required: ['token', 'password'],
      properties: { token: text(100), password: text(256, 0) },
    },
    ModeBody: { type: 'object', additionalProperties: false, required: ['mode'], properties: { mode: ref('Mode') } },
    ResolveBody: {
      type: 'object',
      additionalProperties: false,
      required: ['resolution'],
      properties: { resolution: ref('Resolution'), note: text(2000, 0) },
    },
    QueryParams: {
      type: 'object',
      description: "A saved query's parameters by name (the body of a run, the query string of its CSV).",
      additionalProperties: text(512, 0),
      properties: { limit: { type: 'integer', minimum: 1 } },
    },
    EventSearchQuery: {
      type: 'object',
      additionalProperties: false,
      // The feedback filter is a window's: its bounds come with it.
      dependentRequired: { feedback: ['feedback_from', 'feedback_to'] },
      properties: {
        id: text(100),
        external_user_id: text(256),
        email: text(320),
        verdict: ref('Verdict'),
        ip: text(64),
        card: text(256),
        identity: { type: 'string', minLength: 3, maxLength: 600, pattern: '^[^=]+=.+$' },
        reason: text(64),
        review: { enum: ['pending', 'approved', 'denied', 'none'] },
        resolved_from: time,
        resolved_to: time,
        feedback: { enum: ['confirmed_abuse', 'false_positive', 'chargeback', 'retracted'] },
        feedback_from: time,
        feedback_to: time,
        undone_from: time,
        undone_to: time,
        event_type: eventTypeFilter,
        from: time,
        to: time,
        cursor: text(200),
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
      },
    },
    ReviewQueueQuery: {
      type: 'object',
      additionalProperties: false,
      properties: {
        cursor: text(200),
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
        event_type: eventTypeFilter,
        reason: text(64),
        older_than_minutes: { type: 'integer', minimum: 0, maximum: 525_600 },
        newer_than_minutes: { type: 'integer', minimum: 1, maximum: 525_600 },
        min_accounts: { type: 'integer', minimum: 2, maximum: 1_000_000 },
        text: text(320),
        confirmed: { enum: ['1'] },
      },
    },
    ResolveManyBody: {
      type: 'object',
      additionalProperties: false,
      required: ['event_ids', 'resolution'],
      properties: {
        event_ids: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: text(100) },
        resolution: ref('Resolution'),
        note: text(2000, 0),
      },
    },
    RingQuery: {
      type: 'object',
      additionalProperties: false,
      properties: { cursor: text(1200), limit: { type: 'integer', minimum: 1, maximum: 100, default: 100 } },
    },
    FeedbackManyBody: {
      type: 'object',
      additionalProperties: false,
      required: ['accounts', 'outcome', 'note'],
      properties: {
        accounts: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: text(256) },
        outcome: { enum: ['confirmed_abuse', 'false_positive'] },
        note: text(2000),
      },
    },
    ClusterChangesQuery: {
      type: 'object',
      additionalProperties: false,
      required: ['from', 'to'],
      properties: {
        from: time,
        to: time,
        change: { enum: ['made', 'grown'] },
        confirmed: { enum: ['1'] },
        cursor: text(200),
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
      },
    },
    UndoMarksBody: { type: 'object', additionalProperties: false, required: ['note'], properties: { note: text(2000) } },
    PageQuery: {
      type: 'object',
      additionalProperties: false,
      properties: { cursor: text(200), limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
    },
    FeedbackSearchQuery: {
      type: 'object',
      additionalProperties: false,
      properties: { external_user_id: text(256), email: text(320), event_id: text(100) },
    },
    RetractBody: { type: 'object', additionalProperties: false, required: ['note'], properties: { note: text(2000) } },
    CypherRunBody: {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: {
        query: text(16_384),
        params: {
          type: 'object',
          description: 'Parameter values are JSON: strings, numbers, booleans, lists, maps.',
          maxProperties: 50,
          propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' },
        },
      },
    },
    SaveQueryBody: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'query'],
      properties: { id: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }, description: text(500, 0), query: text(16_384) },
    },
    CypherSettingsBody: {
      type: 'object',
      additionalProperties: false,
      required: ['free_form_roles'],
      properties: { free_form_roles: ref('Role') },
    },

    // ---- Words shared by requests and answers. ----
    Mode: mode,
    Role: { enum: ['analyst', 'admin'] },
    Verdict: { enum: ['allow', 'review', 'block'] },
    FinalVerdict: { enum: ['allow', 'block'], description: "A resolved review's verdict: approved is allow, denied is block." },
    Resolution: { enum: ['approved', 'denied'] },
    ReviewStatus: { enum: ['pending', 'approved', 'denied'] },
    Outcome: { enum: ['confirmed_abuse', 'false_positive', 'chargeback'] },
    WindowName: { enum: WINDOWS, description: "The overview's windows: the last 24 h, the 24 h before, the same 24 h a week earlier." },
    ErrorBody: closed(
      {
        error: {
          enum: [
            'invalid_request',
            'unauthorized',
            'forbidden',
            'not_found',
            'idempotency_conflict',
            'conflict',
            'rate_limited',
            'internal',
          ],
        },
        message: str,
      },
      { details: open('Per error: `issues` (path and message) for invalid_request, `retry_after_seconds` for rate_limited, ...') },
      'Every error, as the public API answers it.',
    ),
    Ok: closed({ ok: yes }),

    // ---- Answers: the door and the analyst (auth/console-auth-routes.ts). ----
    Me: closed(
      {
        analyst_id: str,
        email: str,
        role: ref('Role'),
        tenant_id: str,
        tenant_name: str,
        mode: ref('Mode'),
        csrf_token: { type: 'string', description: 'Sent back in X-CSRF-Token on every state-changing request.' },
        idle_minutes: int,
      },
      {},
      'The signed-in analyst, their tenant and mode.',
    ),
    ModeSwitched: closed({ ok: yes, mode: ref('Mode') }),

    // ---- Events and accounts (console-event-routes.ts, event-detail.ts, account-detail.ts). ----
    Reason: closed({ code: str }, { detail: open('Specific to the code: flat scalars (linked_accounts, count, threshold, ...).') }),
    EventRow: closed(EVENT_ROW_REQUIRED, EVENT_ROW_OPTIONAL, 'An event as the console lists it: the public StoredEvent plus its email.'),
    EventSearchPage: closed({ events: list(ref('EventRow')) }, { next_cursor: str }, 'Events newest first, a page at a time.'),
    DetailedEvent: closed(
      {
        ...EVENT_ROW_REQUIRED,
        identity: open('Other identifiers the request sent (phone, wallet, ...).', str),
        payment: orNull(open('The payment the request sent (card fingerprint, funding, country, amount, ...).')),
        ip: orNull(str),
        user_agent: orNull(str),
      },
      EVENT_ROW_OPTIONAL,
      'An event row with what its request carried.',
    ),
    EventDetail: closed(
      {
        event: ref('DetailedEvent'),
        signals: open('The signals the engine saw, as it saw them.'),
        earlier: closed({
          by: {
            enum: ['external_user_id', 'email', null],
            description: 'What the earlier events share with this one (null: it names neither).',
          },
          events: list(ref('EventRow')),
        }),
        cluster: { anyOf: [ref('ClusterFacts'), { type: 'null' }, { const: 'unavailable' }], description: 'null: it linked nothing yet.' },
      },
      {
        review: closed(
          {
            status: ref('ReviewStatus'),
            resolved_at: orNull(time),
            resolved_by: orNull(str),
            note: orNull(str),
            marks_retracted: orNull(closed({ at: time, by: str, note: str })),
          },
          {},
          'Absent when the verdict was not review.',
        ),
      },
      'One event as an analyst reads it.',
    ),
    VerdictCounts: closed({ allow: int, review: int, block: int }),
    Identifier: closed(
      {
        kind: str,
        value: str,
        hub: bool,
        accounts: int,
        firstSeenAt: orNull(epochMs),
        lastSeenAt: orNull(epochMs),
        expired: { type: 'boolean', description: "The account's link to it expired." },
      },
      {},
      'An identifier an account links to in the graph.',
    ),
    HubQuery: {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'value'],
      properties: {
        kind: text(64),
        value: text(512),
        skip: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
        limit: { type: 'integer', minimum: 1, maximum: 500, default: 500 },
      },
    },
    HubAccount: closed({
      external_user_id: str,
      linked_at: orNull(time),
      expired: { type: 'boolean', description: 'Its link to the identifier expired.' },
      confirmed: { type: 'boolean', description: 'It carries a live confirmed_abuse mark.' },
      pending_reviews: int,
    }),
    HubAccounts: closed(
      {
        kind: str,
        value: str,
        hub: bool,
        accounts_total: int,
        confirmed_accounts: int,
        pending_reviews: { type: 'integer', description: 'Reviews pending on the accounts listed that are not confirmed.' },
        accounts: list(ref('HubAccount')),
        truncated: { type: 'boolean', description: 'More accounts link to it than are listed (the counts cover them all).' },
      },
      { next_skip: { ...int, description: 'Where the next page of accounts starts (?skip=), when there is one.' } },
      'The accounts behind one identifier (a hub), a page at a time: who shares it, who is confirmed, what waits for review.',
    ),
    AccountDetail: closed(
      {
        external_user_id: str,
        events_total: int,
        verdicts: ref('VerdictCounts'),
        first_seen_at: orNull(time),
        last_seen_at: orNull(time),
        emails: list(str),
        events: list(ref('EventRow')),
        identifiers: { anyOf: [list(ref('Identifier')), { const: 'unavailable' }] },
        cluster: { anyOf: [ref('ClusterFacts'), { type: 'null' }, { const: 'unavailable' }] },
        feedback: list(ref('FeedbackEntry')),
      },
      { next_cursor: str },
      'One account (external user id) on its page.',
    ),

    // ---- The review queue and feedback (review-queue-routes.ts). ----
    ReviewRow: closed(
      {
        event_id: str,
        event_type: str,
        reasons: list(ref('Reason')),
        created_at: time,
        age_seconds: int,
        policy_version: str,
      },
      {
        external_user_id: str,
        email: str,
        cluster: closed({
          id: str,
          accounts: int,
          confirmed_abuse: bool,
          confirmed_since_queued_at: {
            ...orNull(time),
            description: 'The newest confirmed_abuse mark on the cluster made after the review was queued.',
          },
        }),
      },
      'A pending review in the queue.',
    ),
    ReviewQueue: closed(
      {
        pending: int,
        oldest_created_at: orNull(time),
        graph: { enum: ['ok', 'unavailable'], description: 'unavailable: the graph did not answer, so the reviews carry no cluster.' },
        reviews: list(ref('ReviewRow')),
      },
      {
        next_cursor: str,
        matching: closed(
          { count: int, complete: bool },
          {},
          'Under filters, on the first page (no cursor): how many pending reviews match them. A cluster filter counts the reviews its scan reached: complete is false when it stopped at its bound first, so at least count match.',
        ),
      },
      'Pending reviews, oldest first.',
    ),
    Resolved: closed({ ok: yes, final_verdict: ref('FinalVerdict'), resolved_at: time, delivery_id: str }),
    ResolveManyAnswer: closed(
      {
        resolved: int,
        results: list({
          anyOf: [
            closed({ event_id: str, ok: yes, final_verdict: ref('FinalVerdict'), delivery_id: str }),
            closed({ event_id: str, ok: { const: false }, error: { enum: ['conflict', 'not_found'] }, message: str }),
          ],
        }),
      },
      {},
      'One answer per review: one resolved meanwhile is reported, not an error for the rest.',
    ),
    FeedbackManyAnswer: closed(
      {
        recorded: { type: 'integer', description: 'Reports written (a report that already stood is audited, not written again).' },
        results: list({
          anyOf: [
            closed({ external_user_id: str, ok: yes }, { duplicate: yes }),
            closed({ external_user_id: str, ok: { const: false }, error: { enum: ['not_found'] }, message: str }),
          ],
        }),
      },
      {},
      'One answer per account, each recorded and audited in its own transaction.',
    ),
    RingMember: closed(
      {
        external_user_id: str,
        first_seen_at: time,
        verdicts: closed({ allow: int, review: int, block: int }),
        reviews: closed({ pending: int, approved: int, denied: int }),
        pending_review_ids: {
          ...list(str),
          description: 'Its pending reviews, oldest first (the first 50; the count is in reviews.pending).',
        },
        marks: {
          ...closed({ confirmed_abuse: int, false_positive: int, chargeback: int }),
          description:
            'Marks standing about it: feedback about the account, one of its events or one of its emails, and its resolved reviews whose marks were not undone.',
        },
        confirmed: { type: 'boolean', description: 'The graph counts it as confirmed abuse (as the verdict reads it).' },
      },
      {},
      'One account of a cluster in the ring view.',
    ),
    RingMembers: closed(
      { cluster_id: str, accounts_total: int, members: list(ref('RingMember')) },
      { next_cursor: str },
      "A page of a cluster's accounts, in the order they were first seen.",
    ),
    MarksUndone: closed({ ok: yes, marks_retracted_at: time }),
    FeedbackEntry: closed({
      feedback_id: str,
      outcome: ref('Outcome'),
      subject: closed({ kind: { enum: ['event_id', 'external_user_id', 'email'] }, value: str }),
      note: orNull(str),
      created_at: time,
      retracted_at: orNull(time),
      retract_note: orNull(str),
    }),
    FeedbackRecorded: closed({ ok: yes }, { duplicate: yes }, 'As POST /v1/feedback answers.'),
    FeedbackList: closed({ feedback: list(ref('FeedbackEntry')) }),
    FeedbackRetracted: closed({ ok: yes, feedback: ref('FeedbackEntry') }),

    // ---- The graph: clusters, marks, saved queries (console-graph-routes.ts, cluster-picture.ts, mark-evidence.ts). ----
    ClusterFacts: closed(
      {
        id: str,
        accounts: int,
        size: int,
        confirmedAbuse: bool,
        falsePositive: bool,
        chargebacks: int,
        suppressed: { ...list(str), description: 'Reason codes a false positive suppresses for the cluster.' },
        lastTrialStartAt: orNull(epochMs),
        convertedAt: orNull(epochMs),
      },
      {},
      "An identity cluster's facts, as the graph keeps them (camelCase).",
    ),
    PictureNode: closed(
      {
        key: str,
        label: { enum: ['account', 'identifier'] },
        kind: str,
        value: str,
        accounts: orNull(int),
        anonymous: orNull(int),
        hub: bool,
        linking: bool,
        history: orNull(bool),
        firstSeenAt: orNull(epochMs),
        lastSeenAt: orNull(epochMs),
      },
      { received: { ...list(str), description: "An email identifier's addresses as the drawn events carried them." } },
    ),
    PictureEvent: closed({
      key: str,
      id: str,
      type: str,
      at: epochMs,
      verdict: orNull(ref('Verdict')),
      review: orNull(ref('ReviewStatus')),
    }),
    PictureEdge: closed({ from: str, to: str, type: { enum: ['LINKED', 'BY', 'USED'] } }),
    ClusterPicture: closed(
      {
        cluster: ref('ClusterFacts'),
        nodes: list(ref('PictureNode')),
        events: list(ref('PictureEvent')),
        edges: list(ref('PictureEdge')),
        drawnMembers: int,
        skip: int,
      },
      {},
      'One bounded page of a cluster, to draw.',
    ),
    ClusterId: closed({ cluster_id: str }),
    Mark: closed(
      {
        feedback_id: orNull(str),
        outcome: ref('Outcome'),
        subject_kind: str,
        marked_at: time,
        via: {
          ...orNull(list(str)),
          description: 'The identifiers between the event or account explained and the subject (null: no live path).',
        },
        path: { ...orNull(list(str)), description: "The path's nodes as the cluster picture keys them (null: no live path)." },
        subject_key: { ...str, description: "The mark's subject as the cluster picture keys it (event:, account: or id:)." },
        target_key: {
          ...orNull(str),
          description: 'The account or identifier a path to the subject ends at, as the picture keys it (an event is reached through it).',
        },
        subject_value: orNull(str),
        note: orNull(str),
        reported_by: str,
      },
      {
        review_event_id: str,
        resolved_by: { ...str, description: "A review's mark: who resolved the review (they, or an admin, may undo its marks)." },
        retracted: {
          ...closed({ at: time, by: str, note: orNull(str) }),
          description: 'The mark was taken back: when, by whom (an analyst, or an operator at the CLI), and why.',
        },
      },
      'A mark on a cluster, with who reported it and what they said; one taken back says so.',
    ),
    Evidence: closed(
      {
        cluster: orNull(closed({ id: str, accounts: int })),
        marks: list(ref('Mark')),
      },
      {
        event_id: { ...str, description: 'Explained from this event: paths start at its account (or its identifiers).' },
        account: { ...str, description: 'Explained from this account: paths start at it.' },
      },
      'Why a cluster is what it is: each mark on it (standing or taken back), with its path and reporter.',
    ),
    QueryList: closed(
      {
        queries: list({
          anyOf: [
            closed({ ...QUERY_INFO, own: { const: false } }),
            closed({ ...QUERY_INFO, own: yes, query: str, created_by: str, created_at: time }),
          ],
        }),
        row_cap: int,
        timeout_ms: int,
      },
      {},
      "The reviewed saved queries, then the tenant's own.",
    ),
    QueryResult: closed(
      RESULT,
      {
        normalised: open(
          "Parameters the server changed before running (a saved query's $email, as the graph keeps it).",
          closed({ given: str, used: str }),
        ),
        guardMs: { type: 'number', description: "A tenant's own saved query only: the guard's cost." },
      },
      "A saved query's rows.",
    ),

    // ---- Analysts' own Cypher (console-cypher-routes.ts). ----
    CypherSettings: closed({
      allowed: { type: 'boolean', description: 'Whether this analyst may run free-form Cypher.' },
      free_form_roles: ref('Role'),
      row_cap: int,
      timeout_ms: int,
      schema: closed({ labels: list(str), relationship_types: list(str), property_keys: list(str) }),
    }),
    CypherRunResult: closed({ ...RESULT, guard_ms: num }),
    CypherHistory: closed(
      {
        history: list(
          closed({
            at: time,
            mode: ref('Mode'),
            query: str,
            params: open('The parameters as sent.'),
            saved_query: orNull(str),
            rows: orNull(int),
            ms: orNull(num),
            refused: orNull(str),
            error: orNull(str),
          }),
        ),
      },
      {},
      "The analyst's own runs, newest first.",
    ),
    QuerySaved: closed({ id: str, parameters: list(str) }),
    FreeFormRoles: closed({ free_form_roles: ref('Role') }),

    // ---- The overview and the audit log (overview-routes.ts, overview-store.ts). ----
    ActivityCounts: closed(
      Object.fromEntries(
        ['opened', 'approved', 'denied', 'confirmed_abuse', 'false_positive', 'chargeback', 'retracted', 'marks_undone', 'policies'].map(
          (k) => [k, int],
        ),
      ),
    ),
    Delivery: closed({
      delivery_id: str,
      event_id: str,
      status: { enum: ['pending', 'delivered', 'failed'] },
      attempts: int,
      last_status_code: orNull(int),
      last_error: orNull(str),
      next_attempt_at: orNull(time),
      created_at: time,
      delivered_at: orNull(time),
    }),
    Overview: closed(
      {
        since: time,
        hours: int,
        verdicts_per_hour: list(closed({ hour: time, allow: int, review: int, block: int })),
        top_reasons: list(closed({ code: str, events: int })),
        windows: list(closed({ name: ref('WindowName'), from: time, to: time })),
        compare: closed({
          verdicts: byWindow(ref('VerdictCounts')),
          reasons: list(closed({ code: str, counts: byWindow(int) })),
          activity: byWindow(ref('ActivityCounts')),
          clusters: byWindow({
            ...orNull(closed({ made: int, grown: int, confirmed: int, capped: bool })),
            description: 'null: the graph did not answer.',
          }),
          publications: list(closed({ policy_version: str, published_at: time, note: orNull(str) })),
        }),
        backlog: closed({ pending: int, oldest_created_at: orNull(time) }),
        webhook: closed({
          endpoint: orNull(closed({ url: str, enabled: bool })),
          last_24h: closed({ pending: int, delivered: int, failed: int, retrying: int }),
          failed: list(ref('Delivery')),
        }),
      },
      {},
      "The selected mode's last 24 h, and what changed against the day before and last week.",
    ),
    ClusterChange: closed({
      id: str,
      accounts: int,
      new_accounts: { type: 'integer', description: 'Of its accounts, those first seen in the window.' },
      change: { enum: ['made', 'grown'], description: 'made: every account of it is new; grown: it has older accounts too.' },
      confirmed_abuse: { type: 'boolean', description: 'A confirmed_abuse mark stands on it.' },
    }),
    ClusterChanges: closed(
      {
        from: time,
        to: time,
        counts: closed({ made: int, grown: int, confirmed: { type: 'integer', description: 'Of those made or grown.' } }),
        capped: { type: 'boolean', description: 'More accounts were first seen in the window than were looked up in the graph.' },
        total: { type: 'integer', description: 'The clusters that match the filter, on every page.' },
        clusters: list(ref('ClusterChange')),
      },
      { next_cursor: str },
      'The clusters new accounts made or grew in a window, largest first: every one the overview counts.',
    ),
    Redelivered: closed({ ok: yes, delivery_id: str }),
    AuditPage: closed(
      {
        entries: list(
          closed({
            id: str,
            at: time,
            mode: ref('Mode'),
            analyst: str,
            action: str,
            subject: orNull(str),
            detail: open('What the action did.'),
          }),
        ),
      },
      { next_cursor: str },
      'The audit log, newest first.',
    ),
  },
} as const satisfies Schema & { $defs: Record<string, Schema> };

export type WireName = keyof typeof CONSOLE_WIRE.$defs;

// Every /console/api route: the definitions of its body or query string and of its answer
// (null: not JSON). The test of the routes checks each answer against it, and that the routers
// register exactly these routes.
export interface WireRoute {
  body?: WireName;
  query?: WireName;
  response: WireName | null;
  // Other than 200.
  status?: number;
}

export const CONSOLE_ROUTES = {
  'POST /sign-in': { body: 'SignInBody', response: 'Ok' },
  'POST /welcome': { body: 'WelcomeBody', response: 'Ok' },
  'POST /sign-out': { response: 'Ok' },
  'GET /me': { response: 'Me' },
  'POST /mode': { body: 'ModeBody', response: 'ModeSwitched' },
  'GET /reviews': { query: 'ReviewQueueQuery', response: 'ReviewQueue' },
  'POST /reviews/resolve-many': { body: 'ResolveManyBody', response: 'ResolveManyAnswer' },
  'POST /reviews/:eventId/undo-marks': { body: 'UndoMarksBody', response: 'MarksUndone' },
  'POST /reviews/:eventId/resolve': { body: 'ResolveBody', response: 'Resolved' },
  // Its body is the public contract's FeedbackRequest, validated as POST /v1/feedback's.
  'POST /feedback': { response: 'FeedbackRecorded' },
  'GET /feedback': { query: 'FeedbackSearchQuery', response: 'FeedbackList' },
  'POST /feedback/:id/retract': { body: 'RetractBody', response: 'FeedbackRetracted' },
  'GET /events': { query: 'EventSearchQuery', response: 'EventSearchPage' },
  'GET /accounts/:externalId': { response: 'AccountDetail' },
  'GET /events/:id': { response: 'EventDetail' },
  'GET /clusters/:id': { response: 'ClusterPicture' },
  'GET /events/:id/cluster': { response: 'ClusterId' },
  'GET /events/:id/evidence': { response: 'Evidence' },
  'GET /accounts/:externalId/cluster': { response: 'ClusterId' },
  'GET /accounts/:externalId/evidence': { response: 'Evidence' },
  'GET /clusters/:id/evidence': { response: 'Evidence' },
  'GET /clusters/:id/members': { query: 'RingQuery', response: 'RingMembers' },
  'POST /feedback/many': { body: 'FeedbackManyBody', response: 'FeedbackManyAnswer' },
  'GET /hubs': { query: 'HubQuery', response: 'HubAccounts' },
  'GET /queries': { response: 'QueryList' },
  'POST /queries/:id/run': { body: 'QueryParams', response: 'QueryResult' },
  'GET /queries/:id/csv': { query: 'QueryParams', response: null },
  'GET /cypher': { response: 'CypherSettings' },
  'POST /cypher/run': { body: 'CypherRunBody', response: 'CypherRunResult' },
  'GET /cypher/history': { response: 'CypherHistory' },
  'POST /cypher/saved': { body: 'SaveQueryBody', response: 'QuerySaved', status: 201 },
  'DELETE /cypher/saved/:id': { response: 'Ok' },
  'PUT /cypher/settings': { body: 'CypherSettingsBody', response: 'FreeFormRoles' },
  'GET /overview': { response: 'Overview' },
  'GET /cluster-changes': { query: 'ClusterChangesQuery', response: 'ClusterChanges' },
  'POST /deliveries/:id/redeliver': { response: 'Redelivered' },
  'GET /audit': { query: 'PageQuery', response: 'AuditPage' },
} as const satisfies Record<string, WireRoute>;
