// The shared test vectors (../test-vectors/*.json, written once for all three clients), each
// served by a real local HTTP server (httptest) and read back through the public API. Every case
// of every file runs; a case added later is picked up without a change here.
package doorman_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	doorman "github.com/doorman-oss/doorman/clients/go"
)

const vectorsDir = "../test-vectors"

func readVectors(t *testing.T, file string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectorsDir, file))
	if err != nil {
		t.Fatalf("the shared vectors are read from %s: %v", vectorsDir, err)
	}
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	if err := decoder.Decode(into); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// A header value in a vector: one string or a list.
type headerValues []string

func (h *headerValues) UnmarshalJSON(data []byte) error {
	var one string
	if json.Unmarshal(data, &one) == nil {
		*h = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return err
	}
	*h = many
	return nil
}

// rawHeader keeps the vector's header names as written (any case): VerifyWebhook must find them
// in a map nobody canonicalised.
func rawHeader(h map[string]headerValues) http.Header {
	header := http.Header{}
	for name, values := range h {
		header[name] = append([]string(nil), values...)
	}
	return header
}

func serveVector(status int, headers map[string]headerValues, body string, count *atomic.Int32) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		count.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		for name, values := range headers {
			for _, value := range values {
				w.Header().Add(name, value)
			}
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
}

func jsonEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	normalise := func(v any) any {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var out any
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return out
	}
	if g, w := normalise(got), normalise(want); !reflect.DeepEqual(g, w) {
		t.Errorf("%s: got %v, want %v", what, g, w)
	}
}

type webhookVectors struct {
	Cases []struct {
		Name    string                  `json:"name"`
		Body    string                  `json:"body"`
		Headers map[string]headerValues `json:"headers"`
		Secrets []string                `json:"secrets"`
		Expect  struct {
			OK      bool           `json:"ok"`
			Type    string         `json:"type"`
			Known   bool           `json:"known"`
			Payload map[string]any `json:"payload"`
			Error   string         `json:"error"`
		} `json:"expect"`
	} `json:"cases"`
}

func TestVectorsWebhooks(t *testing.T) {
	var vectors webhookVectors
	readVectors(t, "webhooks.json", &vectors)
	if len(vectors.Cases) == 0 {
		t.Fatal("webhooks.json has no cases")
	}
	for _, c := range vectors.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			// VerifyWebhook itself, with the header map as the vector writes it.
			event, err := doorman.VerifyWebhook([]byte(c.Body), rawHeader(c.Headers), c.Secrets)
			if !c.Expect.OK {
				var failure *doorman.WebhookError
				if !errors.As(err, &failure) {
					t.Fatalf("want failure %s, got event %v, error %v", c.Expect.Error, event, err)
				}
				if string(failure.Reason) != c.Expect.Error {
					t.Fatalf("reason: got %s, want %s", failure.Reason, c.Expect.Error)
				}
			} else {
				if err != nil {
					t.Fatalf("want a verified %s, got %v", c.Expect.Type, err)
				}
				if event.WebhookType() != c.Expect.Type {
					t.Fatalf("type: got %s, want %s", event.WebhookType(), c.Expect.Type)
				}
				resolved, known := event.(*doorman.ReviewResolved)
				if known != c.Expect.Known {
					t.Fatalf("known: got %T, want known=%v", event, c.Expect.Known)
				}
				if known {
					comparePayload(t, resolved, c.Expect.Payload)
				} else if unknown, ok := event.(*doorman.UnknownWebhook); !ok || string(unknown.Body) != c.Body {
					t.Fatalf("an unknown type keeps its verified body: %#v", event)
				}
			}

			// The same delivery over HTTP to the middleware.
			var handled atomic.Int32
			var got *doorman.ReviewResolved
			receiver := httptest.NewServer(doorman.WebhookHandler(
				func() []string { return c.Secrets },
				func(_ context.Context, event *doorman.ReviewResolved) error {
					handled.Add(1)
					got = event
					return nil
				},
			))
			defer receiver.Close()
			req, err := http.NewRequest(http.MethodPost, receiver.URL, strings.NewReader(c.Body))
			if err != nil {
				t.Fatal(err)
			}
			for name, values := range c.Headers {
				for _, value := range values {
					req.Header.Add(name, value)
				}
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			wantStatus := map[string]int{
				"": http.StatusNoContent, "no_secret": http.StatusInternalServerError, "invalid_payload": http.StatusBadRequest,
				"missing_signature": http.StatusUnauthorized, "malformed_signature": http.StatusUnauthorized,
				"signature_mismatch": http.StatusUnauthorized,
			}[c.Expect.Error]
			if wantStatus == 0 {
				t.Fatalf("no status known for failure %q: add it to WebhookHandler and here", c.Expect.Error)
			}
			if res.StatusCode != wantStatus {
				t.Fatalf("middleware: got %d, want %d", res.StatusCode, wantStatus)
			}
			wantHandled := int32(0)
			if c.Expect.OK && c.Expect.Known {
				wantHandled = 1
			}
			if handled.Load() != wantHandled {
				t.Fatalf("middleware called the handler %d times, want %d", handled.Load(), wantHandled)
			}
			if got != nil {
				comparePayload(t, got, c.Expect.Payload)
			}
		})
	}
}

// comparePayload compares every field of the expected payload with the typed one, resolved_at
// as an instant (Go writes 08:15:00.000Z as 08:15:00Z).
func comparePayload(t *testing.T, got *doorman.ReviewResolved, want map[string]any) {
	t.Helper()
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var gotFields map[string]any
	if err := json.Unmarshal(data, &gotFields); err != nil {
		t.Fatal(err)
	}
	wantFields := map[string]any{}
	for key, value := range want {
		wantFields[key] = value
	}
	wantAt, err := time.Parse(time.RFC3339Nano, wantFields["resolved_at"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if !got.ResolvedAt.Equal(wantAt) {
		t.Errorf("resolved_at: got %v, want %v", got.ResolvedAt, wantAt)
	}
	delete(gotFields, "resolved_at")
	delete(wantFields, "resolved_at")
	jsonEqual(t, "payload", gotFields, wantFields)
}

type verdictVectors struct {
	Cases []struct {
		Name    string                  `json:"name"`
		Status  int                     `json:"status"`
		Headers map[string]headerValues `json:"headers"`
		Body    string                  `json:"body"`
		Expect  struct {
			OK                bool                       `json:"ok"`
			ID                string                     `json:"id"`
			Verdict           string                     `json:"verdict"`
			PolicyVersion     string                     `json:"policy_version"`
			ReasonCodes       []string                   `json:"reason_codes"`
			RecommendedAction *string                    `json:"recommended_action"`
			Degraded          []string                   `json:"degraded"`
			PassesThrough     map[string]json.RawMessage `json:"passes_through"`
			FailOpenReason    string                     `json:"fail_open_reason"`
		} `json:"expect"`
	} `json:"cases"`
}

func TestVectorsVerdictResponses(t *testing.T) {
	var vectors verdictVectors
	readVectors(t, "verdict-responses.json", &vectors)
	if len(vectors.Cases) == 0 {
		t.Fatal("verdict-responses.json has no cases")
	}
	for _, c := range vectors.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			var count atomic.Int32
			server := serveVector(c.Status, c.Headers, c.Body, &count)
			defer server.Close()
			client := newTestClient(t, server.URL, doorman.Options{ScreenTimeout: 5 * time.Second})
			result, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10", Email: "ada@example.com"})
			if err != nil {
				t.Fatalf("Screen: %v", err)
			}
			if !c.Expect.OK {
				if !result.FailedOpen || string(result.Reason) != c.Expect.FailOpenReason || result.Verdict != doorman.VerdictAllow {
					t.Fatalf("want a fail-open allow (%s), got %+v", c.Expect.FailOpenReason, result)
				}
				if result.Err == nil || result.Err.Kind != doorman.KindInvalidResponse {
					t.Fatalf("want the invalid_response error, got %v", result.Err)
				}
				// An unreadable 200 is retried like a 5xx: the first request and two retries.
				if count.Load() != 3 || result.Err.Attempts != 3 {
					t.Fatalf("requests: %d, attempts: %d, want 3", count.Load(), result.Err.Attempts)
				}
				return
			}
			if result.FailedOpen {
				t.Fatalf("failed open: %v", result.Err)
			}
			if result.ID != c.Expect.ID || string(result.Verdict) != c.Expect.Verdict || result.PolicyVersion != c.Expect.PolicyVersion {
				t.Fatalf("got %s %s %s", result.ID, result.Verdict, result.PolicyVersion)
			}
			codes := []string{}
			for _, reason := range result.Reasons {
				codes = append(codes, string(reason.Code))
			}
			jsonEqual(t, "reason codes", codes, c.Expect.ReasonCodes)
			wantAction := ""
			if c.Expect.RecommendedAction != nil {
				wantAction = *c.Expect.RecommendedAction
			}
			if string(result.RecommendedAction) != wantAction {
				t.Fatalf("recommended_action: got %q, want %q", result.RecommendedAction, wantAction)
			}
			degraded := []string{}
			for _, source := range result.Degraded {
				degraded = append(degraded, string(source))
			}
			jsonEqual(t, "degraded", degraded, c.Expect.Degraded)
			if len(result.Extra) != len(c.Expect.PassesThrough) {
				t.Fatalf("passes through: got %v, want %v", keys(result.Extra), keys(c.Expect.PassesThrough))
			}
			for field, want := range c.Expect.PassesThrough {
				got, ok := result.Extra[field]
				if !ok {
					t.Fatalf("%s did not pass through", field)
				}
				var g, w any
				_ = json.Unmarshal(got, &g)
				_ = json.Unmarshal(want, &w)
				if !reflect.DeepEqual(g, w) {
					t.Fatalf("%s: got %s, want %s", field, got, want)
				}
			}
			if result.IdempotencyKey == "" || count.Load() != 1 {
				t.Fatalf("key %q, requests %d", result.IdempotencyKey, count.Load())
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	out := []string{}
	for key := range m {
		out = append(out, key)
	}
	return out
}

type errorVectors struct {
	Cases []struct {
		Name    string                  `json:"name"`
		Status  int                     `json:"status"`
		Headers map[string]headerValues `json:"headers"`
		Body    string                  `json:"body"`
		Expect  struct {
			Status       int                              `json:"status"`
			Code         *string                          `json:"code"`
			Retryable    bool                             `json:"retryable"`
			RetryAfterMs *int64                           `json:"retry_after_ms"`
			Issues       []doorman.ValidationIssue        `json:"issues"`
			Attempts     int                              `json:"attempts"`
			Screen       struct{ Outcome, Reason string } `json:"screen"`
		} `json:"expect"`
	} `json:"cases"`
}

func TestVectorsErrors(t *testing.T) {
	var vectors errorVectors
	readVectors(t, "errors.json", &vectors)
	if len(vectors.Cases) == 0 {
		t.Fatal("errors.json has no cases")
	}
	for _, c := range vectors.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			check := func(t *testing.T, failure *doorman.Error, requests int32) {
				t.Helper()
				wantCode := ""
				if c.Expect.Code != nil {
					wantCode = *c.Expect.Code
				}
				if failure.Kind != doorman.KindResponse || failure.Status != c.Expect.Status || string(failure.Code) != wantCode {
					t.Fatalf("got %s %d %q, want response %d %q", failure.Kind, failure.Status, failure.Code, c.Expect.Status, wantCode)
				}
				if failure.Retryable() != c.Expect.Retryable {
					t.Fatalf("retryable: got %v", failure.Retryable())
				}
				switch {
				case c.Expect.RetryAfterMs == nil && failure.RetryAfter != nil:
					t.Fatalf("retry after: got %v, want none", *failure.RetryAfter)
				case c.Expect.RetryAfterMs != nil && (failure.RetryAfter == nil || failure.RetryAfter.Milliseconds() != *c.Expect.RetryAfterMs):
					t.Fatalf("retry after: got %v, want %d ms", failure.RetryAfter, *c.Expect.RetryAfterMs)
				}
				if c.Expect.Issues != nil {
					jsonEqual(t, "issues", failure.Issues, c.Expect.Issues)
				}
				if failure.Attempts != c.Expect.Attempts || int(requests) != c.Expect.Attempts {
					t.Fatalf("attempts: error says %d, the server saw %d, want %d", failure.Attempts, requests, c.Expect.Attempts)
				}
				if failure.RequestID != c.Headers["X-Request-Id"][0] {
					t.Fatalf("request id: got %q", failure.RequestID)
				}
			}

			t.Run("screen", func(t *testing.T) {
				t.Parallel()
				var count atomic.Int32
				server := serveVector(c.Status, c.Headers, c.Body, &count)
				defer server.Close()
				client := newTestClient(t, server.URL, doorman.Options{ScreenTimeout: 5 * time.Second, MaxRetries: 2})
				result, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10", Email: "ada@example.com"})
				var failure *doorman.Error
				switch c.Expect.Screen.Outcome {
				case "throw":
					if !errors.As(err, &failure) {
						t.Fatalf("want an error even with fail-open on, got %+v, %v", result, err)
					}
				case "fail_open":
					if err != nil || !result.FailedOpen || string(result.Reason) != c.Expect.Screen.Reason {
						t.Fatalf("want a fail-open allow (%s), got %+v, %v", c.Expect.Screen.Reason, result, err)
					}
					failure = result.Err
				default:
					t.Fatalf("unknown outcome %q", c.Expect.Screen.Outcome)
				}
				check(t, failure, count.Load())
			})
			// The other calls share the rules (they never fail open): Events.Get, 10 s budget.
			t.Run("events.get", func(t *testing.T) {
				t.Parallel()
				var count atomic.Int32
				server := serveVector(c.Status, c.Headers, c.Body, &count)
				defer server.Close()
				client := newTestClient(t, server.URL, doorman.Options{MaxRetries: 2, Timeout: 5 * time.Second})
				_, err := client.Events.Get(context.Background(), "evt_1")
				var failure *doorman.Error
				if !errors.As(err, &failure) {
					t.Fatalf("want *doorman.Error, got %v", err)
				}
				check(t, failure, count.Load())
			})
		})
	}
}

func newTestClient(t *testing.T, baseURL string, options doorman.Options) *doorman.Client {
	t.Helper()
	options.BaseURL = baseURL
	if options.SecretKey == "" {
		options.SecretKey = "sk_test_vectors"
	}
	client, err := doorman.New(options)
	if err != nil {
		t.Fatal(err)
	}
	return client
}
