// Screen: the verdict call made inline before the caller commits an action. One
// Idempotency-Key per call (a fresh UUID unless the caller brings one), the body serialised once
// so every retry sends the same bytes, and, by default, a clearly marked allow when Doorman is
// slow, unreachable or failing: screening must never be the reason a signup breaks.
package doorman

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"
)

// FailOpenReason says why Screen answered a fail-open allow.
type FailOpenReason string

// Why Screen failed open.
const (
	FailOpenTimeout            FailOpenReason = "timeout"
	FailOpenNetworkError       FailOpenReason = "network_error"
	FailOpenServerError        FailOpenReason = "server_error"
	FailOpenRateLimited        FailOpenReason = "rate_limited"
	FailOpenInvalidResponse    FailOpenReason = "invalid_response"
	FailOpenConfigurationError FailOpenReason = "configuration_error"
)

// ScreenResult is Screen's answer: Doorman's decision, or (FailedOpen) an allow the client made
// because Doorman could not decide in time.
type ScreenResult struct {
	// The event id (empty when FailedOpen): the join key for the webhook, Events.Get, feedback.
	ID      string
	Verdict Verdict
	// Never nil; empty when FailedOpen, and often on allow.
	Reasons           []Reason
	PolicyVersion     string
	RecommendedAction RecommendedAction
	// Top-level answer fields this version does not know, as sent.
	Extra map[string]json.RawMessage
	// The signal sources Doorman decided without (it answered, but a source ran past its
	// deadline or was down), from the timeout_failopen and partial_enrichment reasons, sorted;
	// SourceUnknown for such a reason that names none. Empty when every signal answered, and
	// when FailedOpen (nothing was decided at all).
	Degraded []SignalSource
	// The key the call sent, on every result: screen the identical event again with it
	// (WithIdempotencyKey) to get the decision of a call that failed open, if it reached one.
	IdempotencyKey string
	// True when Doorman did not decide and Verdict is the client's allow.
	FailedOpen bool
	// Why it failed open; empty otherwise.
	Reason FailOpenReason
	// The failure behind a fail-open; nil otherwise.
	Err *Error
}

const maxIdempotencyKeyLength = 255

// Screen asks Doorman for a verdict on one event.
//
// It retries 429 and 5xx answers (after Retry-After when given), network failures and
// unreadable answers within the budget (ScreenTimeout, default 2 s) and MaxRetries, every
// attempt with the same Idempotency-Key and bytes. When that fails it returns a fail-open allow
// (FailedOpen, Reason, Err) and a nil error, unless WithoutFailOpen is given. It returns an
// error, fail-open or not, for your own mistakes (400 invalid_request with Issues, 401, 404, both
// 409s: a *Error with Kind KindResponse), for a configuration error unless
// FailOpenOnConfigurationError is set, for an event it cannot send (ErrInvalidArgument), and
// when ctx ends first (wrapping ctx.Err()).
func (c *Client) Screen(ctx context.Context, event Event, opts ...CallOption) (ScreenResult, error) {
	o := collect(opts)
	key := ""
	if o.idempotencyKey != nil {
		key = *o.idempotencyKey
	} else {
		key = newUUID()
	}
	// Doorman ignores an empty or over-long key as if absent: refuse it here instead, or retries
	// would silently stop being safe.
	if err := checkIdempotencyKey(key); err != nil {
		return ScreenResult{IdempotencyKey: key}, err
	}
	body, err := marshalEvent(event)
	if err != nil {
		return ScreenResult{IdempotencyKey: key}, err
	}

	var answer VerdictResponse
	timeout, retries := c.budget(o, c.screenTimeout)
	err = c.send(ctx, request{
		method: http.MethodPost,
		path:   "/v1/verdict",
		body:   body,
		header: http.Header{"Idempotency-Key": {key}},
		decode: func(_ int, data []byte) error { return decodeVerdict(data, &answer) },
	}, timeout, retries)
	if err == nil {
		return ScreenResult{
			ID:                answer.ID,
			Verdict:           answer.Verdict,
			Reasons:           answer.Reasons,
			PolicyVersion:     answer.PolicyVersion,
			RecommendedAction: answer.RecommendedAction,
			Extra:             answer.Extra,
			Degraded:          degradedSources(answer.Reasons),
			IdempotencyKey:    key,
		}, nil
	}

	var failure *Error
	if !errors.As(err, &failure) || o.noFailOpen {
		return ScreenResult{IdempotencyKey: key}, err
	}
	failsOpen := failure.Retryable()
	if failure.Kind == KindConfiguration {
		failsOpen = c.failOpenOnCfg
	}
	if !failsOpen {
		return ScreenResult{IdempotencyKey: key}, err
	}
	return ScreenResult{
		Verdict:        VerdictAllow,
		Reasons:        []Reason{},
		IdempotencyKey: key,
		FailedOpen:     true,
		Reason:         failOpenReason(failure),
		Err:            failure,
	}, nil
}

func checkIdempotencyKey(key string) error {
	n := utf8.RuneCountInString(key)
	if n == 0 || n > maxIdempotencyKeyLength || !utf8.ValidString(key) {
		return invalidArgument("the idempotency key must be 1 to %d characters (Doorman ignores an empty or longer one)", maxIdempotencyKeyLength)
	}
	if strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return invalidArgument("the idempotency key must not hold control characters (it travels in a header)")
	}
	return nil
}

// decodeVerdict accepts a 200 only when it is a verdict: an object with an id, a verdict and a
// list of reasons.
func decodeVerdict(data []byte, into *VerdictResponse) error {
	*into = VerdictResponse{} // nothing of an earlier, unreadable attempt stays
	if err := json.Unmarshal(data, into); err != nil {
		return err
	}
	switch {
	case into.ID == "":
		return errors.New("no event id")
	case into.Verdict == "":
		return errors.New("no verdict")
	case into.Reasons == nil:
		return errors.New("no list of reasons")
	}
	return nil
}

// The reasons that say a source was missing name it in detail.sources (comma-separated); one
// without it (a later Doorman's) still counts, as SourceUnknown.
func degradedSources(reasons []Reason) []SignalSource {
	seen := map[SignalSource]bool{}
	for _, reason := range reasons {
		if reason.Code != ReasonTimeoutFailopen && reason.Code != ReasonPartialEnrichment {
			continue
		}
		named := 0
		if list, ok := reason.Detail["sources"].(string); ok {
			for _, source := range strings.Split(list, ",") {
				if source = strings.TrimSpace(source); source != "" {
					seen[SignalSource(source)] = true
					named++
				}
			}
		}
		if named == 0 {
			seen[SourceUnknown] = true
		}
	}
	sources := make([]SignalSource, 0, len(seen))
	for source := range seen {
		sources = append(sources, source)
	}
	sort.Slice(sources, func(i, j int) bool { return sources[i] < sources[j] })
	return sources
}

func failOpenReason(failure *Error) FailOpenReason {
	switch failure.Kind {
	case KindConfiguration:
		return FailOpenConfigurationError
	case KindTimeout:
		return FailOpenTimeout
	case KindNetwork:
		return FailOpenNetworkError
	case KindInvalidResponse:
		return FailOpenInvalidResponse
	}
	if failure.Status == http.StatusTooManyRequests {
		return FailOpenRateLimited
	}
	return FailOpenServerError
}

// newUUID makes a random (version 4) UUID for the Idempotency-Key.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		// Only on a system without a working random source; a guessable key is worse than none.
		panic("doorman: no random source for the idempotency key: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
