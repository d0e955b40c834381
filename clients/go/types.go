// The contract's response shapes as the public API names them. Their fields follow the types
// generated from the served document (internal/generated; contract_test.go fails when the
// document names a field one of these lacks), with two differences the generator cannot make:
// open sets are string types with known values (known_values.gen.go), and fields this version
// does not know are kept in Extra instead of being dropped.
package doorman

import (
	"encoding/json"
	"slices"
	"time"
)

// EventType is a funnel moment: EventSignup, EventTrialStart, EventTrialConvert,
// EventCheckoutAttempt, EventLogin.
type EventType string

// Verdict is Doorman's decision: VerdictAllow, VerdictReview or VerdictBlock.
type Verdict string

// ReasonCode is an open set: a code not among the Reason* constants is informational. Log it;
// never map it to a punitive action.
type ReasonCode string

// Known reports whether the code is one this version of the client was generated with.
func (c ReasonCode) Known() bool { return slices.Contains(knownReasonCodes, c) }

// ErrorCode is the contract's `error` field, an open set (Code* constants for the known values).
type ErrorCode string

// Known reports whether the code is one this version of the client was generated with.
func (c ErrorCode) Known() bool { return slices.Contains(knownErrorCodes, c) }

// RecommendedAction is advice that may come with a verdict, an open set (Action* constants).
// Empty when there is none. Ignoring it changes nothing.
type RecommendedAction string

// Known reports whether the action is one this version of the client was generated with.
func (a RecommendedAction) Known() bool { return slices.Contains(knownRecommendedActions, a) }

// SignalSource is a source of signals a verdict was decided without (Source* constants), an
// open set. SourceUnknown stands for a degraded reason that names no source.
type SignalSource string

// SourceUnknown is what Degraded holds for a timeout_failopen or partial_enrichment reason that
// names no source in detail.sources.
const SourceUnknown SignalSource = "unknown"

// Known reports whether the source is one this version of the client was generated with.
func (s SignalSource) Known() bool { return slices.Contains(knownSignalSources, s) }

// Resolution is a human's resolution of a review.
type Resolution string

// ReviewStatus is where a stored review's resolution stands.
type ReviewStatus string

// FeedbackOutcome is what happened, reported with Feedback.Report.
type FeedbackOutcome string

// SubjectKind is what a feedback report is about.
type SubjectKind string

// CardFunding is a payment card's funding.
type CardFunding string

// HealthStatus is GET /health's overall status.
type HealthStatus string

// CheckStatus is one dependency's status in GET /health.
type CheckStatus string

// Reason explains a decision; it is not the decision. Order is not significant.
type Reason struct {
	Code ReasonCode `json:"code"`
	// A flat map of scalars specific to the code (identity_cluster's linked_accounts,
	// card_probe_pattern's attempts_10m, the degraded reasons' sources, ...); nil when absent.
	// Numbers arrive as float64.
	Detail map[string]any `json:"detail,omitempty"`
	// Fields of a reason this version does not know.
	Extra map[string]json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps unknown fields in Extra.
func (r *Reason) UnmarshalJSON(data []byte) error {
	type plain Reason
	return decodeKeepingExtra(data, (*plain)(r), &r.Extra)
}

// MarshalJSON writes the known fields and Extra.
func (r Reason) MarshalJSON() ([]byte, error) {
	type plain Reason
	return encodeWithExtra(plain(r), r.Extra)
}

// VerdictResponse is the 200 answer of POST /v1/verdict.
type VerdictResponse struct {
	// The event id: the join key for the webhook, Events.Get and feedback.
	ID      string   `json:"id"`
	Verdict Verdict  `json:"verdict"`
	Reasons []Reason `json:"reasons"`
	// The rules that decided, <YYYY-MM-DD>.<n>.
	PolicyVersion     string            `json:"policy_version"`
	RecommendedAction RecommendedAction `json:"recommended_action,omitempty"`
	// Top-level fields this version does not know, as sent.
	Extra map[string]json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps unknown fields in Extra.
func (v *VerdictResponse) UnmarshalJSON(data []byte) error {
	type plain VerdictResponse
	return decodeKeepingExtra(data, (*plain)(v), &v.Extra)
}

// MarshalJSON writes the known fields and Extra.
func (v VerdictResponse) MarshalJSON() ([]byte, error) {
	type plain VerdictResponse
	return encodeWithExtra(plain(v), v.Extra)
}

// StoredEvent is a judged event as stored at decision time (Events.Get, Events.List).
type StoredEvent struct {
	ID            string    `json:"id"`
	EventType     EventType `json:"event_type"`
	Verdict       Verdict   `json:"verdict"`
	Reasons       []Reason  `json:"reasons"`
	PolicyVersion string    `json:"policy_version"`
	// The moment of judgement, UTC.
	CreatedAt time.Time `json:"created_at"`
	// Empty when none was sent at verdict time or attached since.
	ExternalUserID    string            `json:"external_user_id,omitempty"`
	RecommendedAction RecommendedAction `json:"recommended_action,omitempty"`
	// The context sent with the verdict call, echoed back; nil when none was sent.
	Context map[string]any `json:"context,omitempty"`
	// On review verdicts: the human resolution. Verdict stays as judged.
	Review *StoredReview `json:"review,omitempty"`
	// Fields this version does not know, as sent.
	Extra map[string]json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps unknown fields in Extra.
func (e *StoredEvent) UnmarshalJSON(data []byte) error {
	type plain StoredEvent
	return decodeKeepingExtra(data, (*plain)(e), &e.Extra)
}

// MarshalJSON writes the known fields and Extra.
func (e StoredEvent) MarshalJSON() ([]byte, error) {
	type plain StoredEvent
	return encodeWithExtra(plain(e), e.Extra)
}

// StoredReview is the resolution of a stored review verdict.
type StoredReview struct {
	Status ReviewStatus `json:"status"`
	// VerdictBlock after a denial, VerdictAllow after an approval; empty while pending.
	FinalVerdict Verdict `json:"final_verdict,omitempty"`
	// Nil while pending.
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
}

// EventPage is one page of Events.Pages.
type EventPage struct {
	Events []StoredEvent `json:"events"`
	// Empty on the last page.
	NextCursor string `json:"next_cursor,omitempty"`
}

// ValidationIssue names one failed field of a 400 invalid_request.
type ValidationIssue struct {
	// A JSON Pointer into the body, e.g. /ip; empty for the body itself.
	Path    string `json:"path"`
	Message string `json:"message"`
}

// HealthCheck is one dependency's line in GET /health.
type HealthCheck struct {
	Status    CheckStatus `json:"status"`
	LatencyMs float64     `json:"latency_ms"`
	// Why it is down (short, no secrets).
	Error string `json:"error,omitempty"`
}

// The fields of a JSON object, for the Extra maps.
func decodeKeepingExtra(data []byte, known any, extra *map[string]json.RawMessage) error {
	if err := json.Unmarshal(data, known); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	names := jsonFieldNames(known)
	*extra = nil
	for key, value := range all {
		if _, ok := names[key]; ok {
			continue
		}
		if *extra == nil {
			*extra = map[string]json.RawMessage{}
		}
		(*extra)[key] = value
	}
	return nil
}

func encodeWithExtra(known any, extra map[string]json.RawMessage) ([]byte, error) {
	data, err := json.Marshal(known)
	if err != nil || len(extra) == 0 {
		return data, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	for key, value := range extra {
		if _, taken := all[key]; !taken {
			all[key] = value
		}
	}
	return json.Marshal(all)
}
