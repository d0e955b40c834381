// VerifyWebhook checks a delivery's Service-Signature against the exact raw body before anything
// parses it (contract §6.1), in constant time, accepting the body when any of the header's
// sha256= signatures (several during a secret rotation) matches any secret the receiver holds.
// WebhookHandler is the same as net/http middleware.
package doorman

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"
)

// WebhookFailure says why a delivery was not accepted, in the order the checks run.
type WebhookFailure string

const (
	// WebhookNoSecret: no non-empty secret was given to verify with.
	WebhookNoSecret WebhookFailure = "no_secret"
	// WebhookMissingSignature: no Service-Signature header, or an empty one.
	WebhookMissingSignature WebhookFailure = "missing_signature"
	// WebhookMalformedSignature: the header holds no well-formed sha256=<64 hex digits>
	// (sha256=deadbeef, another scheme, the hex alone).
	WebhookMalformedSignature WebhookFailure = "malformed_signature"
	// WebhookSignatureMismatch: no signature matches the body with any of the secrets.
	WebhookSignatureMismatch WebhookFailure = "signature_mismatch"
	// WebhookInvalidPayload: the body is signed but is not a JSON object with a string type.
	WebhookInvalidPayload WebhookFailure = "invalid_payload"
)

// WebhookError is VerifyWebhook's error.
type WebhookError struct {
	Reason  WebhookFailure
	Message string
}

func (e *WebhookError) Error() string {
	return "doorman: webhook " + string(e.Reason) + ": " + e.Message
}

// WebhookEvent is a verified delivery: *ReviewResolved, or *UnknownWebhook for a type this
// version does not know.
type WebhookEvent interface {
	// WebhookType is the payload's type, e.g. "review.resolved".
	WebhookType() string
	isWebhookEvent()
}

// ReviewResolved is the review.resolved payload: a human resolved a queued review. Resolve the
// account by ExternalUserID first, then Email; on ResolutionDenied, revoke it. Deliveries are
// retried until a 2xx, so handle a DeliveryID you have seen before as done.
type ReviewResolved struct {
	Type       string     `json:"type"`
	EventID    string     `json:"event_id"`
	Resolution Resolution `json:"resolution"`
	// A denial turns the original review into VerdictBlock.
	FinalVerdict Verdict   `json:"final_verdict"`
	ResolvedAt   time.Time `json:"resolved_at"`
	// Bound at verdict time or later by Events.AttachUser; empty when none was.
	ExternalUserID string `json:"external_user_id,omitempty"`
	// The original event's email, when one was sent.
	Email string `json:"email,omitempty"`
	// The same on every retry of a delivery: deduplicate on it.
	DeliveryID    string `json:"delivery_id,omitempty"`
	PolicyVersion string `json:"policy_version,omitempty"`
	// Fields this version does not know, as sent.
	Extra map[string]json.RawMessage `json:"-"`
}

// WebhookType implements WebhookEvent.
func (*ReviewResolved) WebhookType() string { return ReviewResolvedType }
func (*ReviewResolved) isWebhookEvent()     {}

// UnmarshalJSON keeps unknown fields in Extra.
func (r *ReviewResolved) UnmarshalJSON(data []byte) error {
	type plain ReviewResolved
	return decodeKeepingExtra(data, (*plain)(r), &r.Extra)
}

// MarshalJSON writes the known fields and Extra.
func (r ReviewResolved) MarshalJSON() ([]byte, error) {
	type plain ReviewResolved
	return encodeWithExtra(plain(r), r.Extra)
}

// ReviewResolvedType is the type of the review.resolved payload.
const ReviewResolvedType = "review.resolved"

// UnknownWebhook is a correctly signed delivery of a type this version does not know: answer it
// 2xx and ignore it (Doorman retries anything else).
type UnknownWebhook struct {
	Type string
	// The verified body as received.
	Body json.RawMessage
}

// WebhookType implements WebhookEvent.
func (u *UnknownWebhook) WebhookType() string { return u.Type }
func (*UnknownWebhook) isWebhookEvent()       {}

// Doorman signs with every secret still valid (the current one first), so a header carries one
// signature per rotation within the overlap; past this many, the rest are not looked at.
const maxSignatures = 32

// VerifyWebhook verifies a delivery: rawBody exactly as received (read it before anything
// parses it), the request's headers (Service-Signature is found in any case, in one value or
// several), and the secrets you hold (whsec_…; during a rotation, both). It computes the
// HMAC-SHA256 of rawBody with each secret and compares it with every sha256= signature in the
// header, each pair in constant time.
//
// It returns *ReviewResolved, or *UnknownWebhook for a verified type this version does not know,
// or a *WebhookError whose Reason says what failed.
func VerifyWebhook(rawBody []byte, header http.Header, secrets []string) (WebhookEvent, error) {
	var keys []string
	for _, secret := range secrets {
		if secret != "" {
			keys = append(keys, secret)
		}
	}
	if len(keys) == 0 {
		return nil, &WebhookError{WebhookNoSecret, "no webhook secret (whsec_…) to verify with"}
	}
	parts := strings.Fields(strings.Join(signatureValues(header), " "))
	if len(parts) == 0 {
		return nil, &WebhookError{WebhookMissingSignature, "no Service-Signature header"}
	}
	if len(parts) > maxSignatures {
		parts = parts[:maxSignatures]
	}
	var candidates [][]byte
	for _, part := range parts {
		if signature, ok := parseSignature(part); ok {
			candidates = append(candidates, signature)
		}
	}
	if len(candidates) == 0 {
		return nil, &WebhookError{WebhookMalformedSignature, "the Service-Signature header holds no well-formed signature (sha256= and 64 hex digits)"}
	}

	verified := false
	for _, key := range keys {
		mac := hmac.New(sha256.New, []byte(key))
		mac.Write(rawBody)
		expected := mac.Sum(nil)
		// Every pair is compared, each in constant time: the time taken says nothing about which
		// byte differed, or which signature matched.
		for _, candidate := range candidates {
			if hmac.Equal(candidate, expected) {
				verified = true
			}
		}
	}
	if !verified {
		return nil, &WebhookError{WebhookSignatureMismatch, "no signature matches the body with any of the secrets"}
	}

	var fields map[string]json.RawMessage
	if err := json.Unmarshal(rawBody, &fields); err != nil || fields == nil {
		return nil, &WebhookError{WebhookInvalidPayload, "the signed body is not a JSON object"}
	}
	var eventType string
	if raw, ok := fields["type"]; !ok || json.Unmarshal(raw, &eventType) != nil || string(raw) == "null" {
		return nil, &WebhookError{WebhookInvalidPayload, "the signed body has no string type"}
	}
	if eventType != ReviewResolvedType {
		return &UnknownWebhook{Type: eventType, Body: append(json.RawMessage(nil), rawBody...)}, nil
	}
	var event ReviewResolved
	if err := json.Unmarshal(rawBody, &event); err != nil {
		return nil, &WebhookError{WebhookInvalidPayload, "the signed body is not a review.resolved payload: " + err.Error()}
	}
	return &event, nil
}

// signatureValues collects every Service-Signature value whatever the case of its name (a
// header map built by hand need not be canonical), in a stable order.
func signatureValues(header http.Header) []string {
	var names []string
	for name := range header {
		if strings.EqualFold(name, "Service-Signature") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var values []string
	for _, name := range names {
		values = append(values, header[name]...)
	}
	return values
}

func parseSignature(part string) ([]byte, bool) {
	scheme, hexDigits, ok := strings.Cut(part, "=")
	if !ok || !strings.EqualFold(scheme, "sha256") || len(hexDigits) != 2*sha256.Size {
		return nil, false
	}
	signature, err := hex.DecodeString(hexDigits)
	return signature, err == nil
}

// MaxWebhookBodyBytes bounds the body WebhookHandler reads (a review.resolved payload is well
// under 1 KiB).
const MaxWebhookBodyBytes = 256 << 10

// WebhookHandler is a receiver for Doorman's webhook as net/http middleware. For each POST it
// reads the raw body (at most MaxWebhookBodyBytes), verifies it with the secrets secrets()
// returns at that moment (so a rotation needs no restart), and then:
//
//   - a signature that does not verify (missing, malformed, mismatched): 401, handle not called;
//   - no secret configured: 500, so Doorman keeps the delivery and retries once you fix it;
//   - a signed body that is not a payload: 400;
//   - a verified type this version does not know: 204, ignored;
//   - review.resolved: handle is called with the request's context; nil answers 204, an error
//     answers 500 and Doorman retries the delivery later.
//
// Doorman retries until a 2xx, so handle must be idempotent (revoking a revoked account is a
// no-op; ReviewResolved.DeliveryID is the same on every retry) and quick: queue slow work.
func WebhookHandler(secrets func() []string, handle func(context.Context, *ReviewResolved) error) http.Handler {
	if secrets == nil || handle == nil {
		panic("doorman: WebhookHandler needs a secrets function and a handle function")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := readAllLimited(w, r)
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "cannot read the body", http.StatusBadRequest)
			return
		}
		event, err := VerifyWebhook(body, r.Header, secrets())
		if err != nil {
			var failure *WebhookError
			errors.As(err, &failure)
			switch failure.Reason {
			case WebhookNoSecret:
				http.Error(w, string(failure.Reason), http.StatusInternalServerError)
			case WebhookInvalidPayload:
				http.Error(w, string(failure.Reason), http.StatusBadRequest)
			default:
				http.Error(w, string(failure.Reason), http.StatusUnauthorized)
			}
			return
		}
		resolved, ok := event.(*ReviewResolved)
		if !ok {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if err := handle(r.Context(), resolved); err != nil {
			http.Error(w, "the receiver could not handle the delivery; retry later", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

func readAllLimited(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	reader := http.MaxBytesReader(w, r.Body, MaxWebhookBodyBytes)
	defer reader.Close()
	return io.ReadAll(reader)
}
