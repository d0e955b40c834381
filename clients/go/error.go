package doorman

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrorKind says how a call failed.
type ErrorKind string

const (
	// KindResponse: Doorman answered with a status that is not a success (Status, Code say which).
	KindResponse ErrorKind = "response"
	// KindTimeout: no answer within the call's time budget.
	KindTimeout ErrorKind = "timeout"
	// KindNetwork: the connection was refused, reset or lost.
	KindNetwork ErrorKind = "network"
	// KindInvalidResponse: a success answer that is not the contract's (not JSON, fields missing).
	KindInvalidResponse ErrorKind = "invalid_response"
	// KindConfiguration: the call can never succeed as configured (the host does not resolve, a
	// redirect, https to a plain-http port, an untrusted certificate). Never retried.
	KindConfiguration ErrorKind = "configuration"
)

// Error is the error of a call that did not succeed. Get it with errors.As:
//
//	var derr *doorman.Error
//	if errors.As(err, &derr) && derr.Code == doorman.CodeConflict { ... }
type Error struct {
	Kind ErrorKind
	// The HTTP status when Doorman answered; 0 otherwise.
	Status int
	// The contract's `error` code, an open set; empty when the answer had none.
	Code ErrorCode
	// The answer's `message` (for logs, never for end users), or what went wrong.
	Message string
	// The answer's `details`, as sent; nil when absent.
	Details map[string]json.RawMessage
	// On a 400 invalid_request: one entry per failed field.
	Issues []ValidationIssue
	// Doorman's X-Request-Id: quote it when reporting a 500.
	RequestID string
	// How long Doorman (or a proxy) asked to wait, from Retry-After; nil when it did not say.
	// An HTTP date in the past gives 0.
	RetryAfter *time.Duration
	// How many requests the call sent, retries included.
	Attempts int

	cause error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("doorman: ")
	switch {
	case e.Kind == KindResponse && e.Code != "":
		fmt.Fprintf(&b, "Doorman answered %d (%s: %s)", e.Status, e.Code, e.Message)
	case e.Kind == KindResponse:
		fmt.Fprintf(&b, "Doorman answered %d", e.Status)
	default:
		b.WriteString(e.Message)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request %s]", e.RequestID)
	}
	return b.String()
}

// Unwrap gives the underlying failure (a net error, a TLS error, a JSON syntax error), if any.
func (e *Error) Unwrap() error { return e.cause }

// Retryable reports whether the same request may succeed later: 429 and 5xx answers, timeouts,
// network failures and unreadable answers. Every other 4xx (both 409s included) and a
// configuration error never will.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindConfiguration:
		return false
	case KindResponse:
		return e.Status == http.StatusTooManyRequests || e.Status >= 500
	default:
		return true
	}
}

// errorFromResponse reads a non-success answer: the contract's error body when there is one.
func errorFromResponse(res *http.Response, body []byte, now time.Time) *Error {
	e := &Error{
		Kind:       KindResponse,
		Status:     res.StatusCode,
		RequestID:  res.Header.Get("X-Request-Id"),
		RetryAfter: parseRetryAfter(res.Header.Get("Retry-After"), now),
	}
	var parsed struct {
		Error   *string                    `json:"error"`
		Message string                     `json:"message"`
		Details map[string]json.RawMessage `json:"details"`
	}
	if json.Unmarshal(body, &parsed) == nil && parsed.Error != nil {
		e.Code = ErrorCode(*parsed.Error)
		e.Message = parsed.Message
		e.Details = parsed.Details
		if raw, ok := parsed.Details["issues"]; ok {
			var issues []ValidationIssue
			if json.Unmarshal(raw, &issues) == nil {
				e.Issues = issues
			}
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(res.StatusCode)
	}
	return e
}

// parseRetryAfter reads delta-seconds (what Doorman sends) or an HTTP date (what a proxy may send).
func parseRetryAfter(header string, now time.Time) *time.Duration {
	header = strings.TrimSpace(header)
	if header == "" {
		return nil
	}
	if seconds, err := strconv.ParseUint(header, 10, 32); err == nil {
		d := time.Duration(seconds) * time.Second
		return &d
	}
	at, err := http.ParseTime(header)
	if err != nil {
		return nil
	}
	d := max(at.Sub(now), 0)
	return &d
}

// ErrInvalidArgument is wrapped by the errors a call returns, before sending anything, for an
// argument it can never send: a signup without IP, an empty or over-long idempotency key, an
// empty event id.
var ErrInvalidArgument = errors.New("doorman: invalid argument")

func invalidArgument(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
}
