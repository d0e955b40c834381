package doorman_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	doorman "github.com/doorman-oss/doorman/clients/go"
)

const allowBody = `{"id":"evt_1","verdict":"allow","reasons":[],"policy_version":"2026-11-20.4"}`

// seen records what a stand-in server received.
type seen struct {
	mu       sync.Mutex
	keys     []string
	bodies   [][32]byte
	auth     []string
	requests int
}

func (s *seen) record(r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	s.bodies = append(s.bodies, sha256.Sum256(body))
	s.auth = append(s.auth, r.Header.Get("Authorization"))
}

func TestRetriesKeepTheKeyAndTheBytes(t *testing.T) {
	var s seen
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.record(r)
		if s.requests < 3 {
			http.Error(w, `{"error":"internal","message":"x"}`, http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, allowBody)
	}))
	defer server.Close()
	var retries []doorman.RetryInfo
	client := newTestClient(t, server.URL, doorman.Options{OnRetry: func(info doorman.RetryInfo) { retries = append(retries, info) }})
	result, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10", Email: "ada@example.com", Context: map[string]any{"b": 1, "a": 2}})
	if err != nil || result.FailedOpen || result.ID != "evt_1" {
		t.Fatalf("%+v %v", result, err)
	}
	if s.requests != 3 || s.keys[0] != result.IdempotencyKey || s.keys[1] != s.keys[0] || s.keys[2] != s.keys[0] {
		t.Fatalf("keys %v, result key %s", s.keys, result.IdempotencyKey)
	}
	if s.bodies[1] != s.bodies[0] || s.bodies[2] != s.bodies[0] {
		t.Fatal("a retry sent other bytes")
	}
	if s.auth[0] != "Bearer sk_test_vectors" {
		t.Fatalf("authorization %q", s.auth[0])
	}
	if len(retries) != 2 || retries[0].Retry != 1 || retries[1].Retry != 2 || retries[0].Err.Status != 500 {
		t.Fatalf("onRetry: %+v", retries)
	}
	// Backoff: base 100 ms, half fixed half random; then 200 ms.
	if retries[0].Delay < 50*time.Millisecond || retries[0].Delay > 100*time.Millisecond ||
		retries[1].Delay < 100*time.Millisecond || retries[1].Delay > 200*time.Millisecond {
		t.Fatalf("delays %v %v", retries[0].Delay, retries[1].Delay)
	}
	if result.Degraded == nil || len(result.Degraded) != 0 || result.Reasons == nil {
		t.Fatalf("a full verdict has an empty Degraded and Reasons: %+v", result)
	}
}

func TestYourKeyIsSentAndABadOneRefused(t *testing.T) {
	var s seen
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.record(r)
		_, _ = io.WriteString(w, allowBody)
	}))
	defer server.Close()
	client := newTestClient(t, server.URL, doorman.Options{})
	result, err := client.Screen(context.Background(), doorman.Login{}, doorman.WithIdempotencyKey("login-attempt-42"))
	if err != nil || result.IdempotencyKey != "login-attempt-42" || s.keys[0] != "login-attempt-42" {
		t.Fatalf("%+v %v %v", result, err, s.keys)
	}
	for _, key := range []string{"", strings.Repeat("k", 256), "a\r\nb"} {
		if _, err := client.Screen(context.Background(), doorman.Login{}, doorman.WithIdempotencyKey(key)); !errors.Is(err, doorman.ErrInvalidArgument) {
			t.Fatalf("key %q: %v", key, err)
		}
	}
	if _, err := client.Screen(context.Background(), doorman.Login{}, doorman.WithIdempotencyKey(strings.Repeat("é", 255))); err != nil {
		t.Fatalf("255 characters is a valid key: %v", err)
	}
	// Two calls without a key get two keys.
	first, _ := client.Screen(context.Background(), doorman.Login{})
	second, _ := client.Screen(context.Background(), doorman.Login{})
	if first.IdempotencyKey == second.IdempotencyKey || len(first.IdempotencyKey) != 36 {
		t.Fatalf("keys %q %q", first.IdempotencyKey, second.IdempotencyKey)
	}
}

func TestASignupWithoutIPIsRefusedBeforeAnythingIsSent(t *testing.T) {
	var s seen
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.record(r) }))
	defer server.Close()
	client := newTestClient(t, server.URL, doorman.Options{})
	for _, event := range []doorman.Event{doorman.Signup{Email: "a@b.c"}, doorman.TrialStart{}, doorman.CheckoutAttempt{}} {
		_, err := client.Screen(context.Background(), event)
		if !errors.Is(err, doorman.ErrInvalidArgument) || !strings.Contains(err.Error(), "requires IP") {
			t.Fatalf("%T: %v", event, err)
		}
	}
	if s.requests != 0 {
		t.Fatalf("%d requests sent", s.requests)
	}
}

func TestFailOpenCanBeTurnedOffPerCall(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "60")
		http.Error(w, `{"error":"rate_limited","message":"slow down"}`, http.StatusTooManyRequests)
	}))
	defer server.Close()
	client := newTestClient(t, server.URL, doorman.Options{})
	result, err := client.Screen(context.Background(), doorman.Login{}, doorman.WithoutFailOpen())
	var failure *doorman.Error
	if !errors.As(err, &failure) || failure.Code != doorman.CodeRateLimited || result.FailedOpen || result.IdempotencyKey == "" {
		t.Fatalf("%+v %v", result, err)
	}
	if *failure.RetryAfter != time.Minute || failure.Attempts != 1 {
		t.Fatalf("a wait past the budget is not waited: %+v", failure)
	}
}

// A listener that accepts connections and never answers.
func silentServer(t *testing.T) string {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			conn, err := listener.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		listener.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, conn := range conns {
			conn.Close()
		}
	})
	return "http://" + listener.Addr().String()
}

func TestASilentServerFailsOpenWithinTheBudget(t *testing.T) {
	client := newTestClient(t, silentServer(t), doorman.Options{ScreenTimeout: 300 * time.Millisecond})
	started := time.Now()
	result, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10"})
	took := time.Since(started)
	if err != nil || !result.FailedOpen || result.Reason != doorman.FailOpenTimeout || result.Err.Kind != doorman.KindTimeout {
		t.Fatalf("%+v %v", result, err)
	}
	if took < 300*time.Millisecond || took > time.Second {
		t.Fatalf("took %v for a 300 ms budget", took)
	}
	if !result.Err.Retryable() || result.Verdict != doorman.VerdictAllow || len(result.Reasons) != 0 || result.Degraded != nil {
		t.Fatalf("%+v", result)
	}
}

func TestPingHasItsOwnShortBudget(t *testing.T) {
	if doorman.PingTimeout != 3*time.Second {
		t.Fatalf("PingTimeout is %v; the README says 3 s", doorman.PingTimeout)
	}
	client := newTestClient(t, silentServer(t), doorman.Options{Timeout: time.Minute})
	started := time.Now()
	_, err := client.Ping(context.Background(), doorman.WithTimeout(400*time.Millisecond))
	var failure *doorman.Error
	if !errors.As(err, &failure) || failure.Kind != doorman.KindTimeout {
		t.Fatalf("want a timeout, got %v", err)
	}
	if took := time.Since(started); took > 1500*time.Millisecond {
		t.Fatalf("took %v for a 400 ms budget", took)
	}
}

func TestAStoppedServerFailsOpenAsANetworkError(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + listener.Addr().String()
	listener.Close()
	client := newTestClient(t, url, doorman.Options{})
	result, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10"})
	if err != nil || !result.FailedOpen || result.Reason != doorman.FailOpenNetworkError || result.Err.Attempts != 3 {
		t.Fatalf("%+v %v", result, err)
	}
}

func TestCancellingTheContextStopsTheCallWithoutFailingOpen(t *testing.T) {
	client := newTestClient(t, silentServer(t), doorman.Options{ScreenTimeout: 10 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	started := time.Now()
	result, err := client.Screen(ctx, doorman.Signup{IP: "203.0.113.10"})
	if !errors.Is(err, context.Canceled) || result.FailedOpen {
		t.Fatalf("%+v %v", result, err)
	}
	if took := time.Since(started); took > time.Second {
		t.Fatalf("took %v after the cancel", took)
	}
	// Also while waiting between retries.
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer server.Close()
	client = newTestClient(t, server.URL, doorman.Options{ScreenTimeout: 10 * time.Second})
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	if _, err := client.Screen(ctx, doorman.Login{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while waiting: %v", err)
	}
}

func TestARedirectIsAConfigurationErrorAndNeverFollowed(t *testing.T) {
	var followed atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed.Add(1) }))
	defer target.Close()
	var requests atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Redirect(w, r, target.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer server.Close()

	// Also with the caller's own http.Client, which would follow redirects.
	client := newTestClient(t, server.URL, doorman.Options{HTTPClient: &http.Client{}})
	_, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10"})
	var failure *doorman.Error
	if !errors.As(err, &failure) || failure.Kind != doorman.KindConfiguration || failure.Retryable() || failure.Attempts != 1 {
		t.Fatalf("want a configuration error, got %v", err)
	}
	if !strings.Contains(failure.Error(), "never follows") || followed.Load() != 0 || requests.Load() != 1 {
		t.Fatalf("%v; followed %d, requests %d", failure, followed.Load(), requests.Load())
	}

	open := newTestClient(t, server.URL, doorman.Options{FailOpenOnConfigurationError: true})
	result, err := open.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10"})
	if err != nil || !result.FailedOpen || result.Reason != doorman.FailOpenConfigurationError || requests.Load() != 2 {
		t.Fatalf("%+v %v", result, err)
	}
	// Other calls always return it.
	if _, err := open.Events.Get(context.Background(), "evt_1"); !errors.As(err, &failure) || failure.Kind != doorman.KindConfiguration {
		t.Fatalf("events: %v", err)
	}
}

func TestTLSProblemsAreConfigurationErrors(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer plain.Close()
	untrusted := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer untrusted.Close()
	for name, url := range map[string]string{
		"https to a plain-http port":     strings.Replace(plain.URL, "http://", "https://", 1),
		"a certificate not trusted here": untrusted.URL,
	} {
		client := newTestClient(t, url, doorman.Options{})
		_, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10"})
		var failure *doorman.Error
		if !errors.As(err, &failure) || failure.Kind != doorman.KindConfiguration || failure.Attempts != 1 {
			t.Fatalf("%s: want a configuration error, got %v", name, err)
		}
	}
}

// The resolver's "no such host" (NXDOMAIN) as Go reports it, from a dialer standing in for DNS:
// a real lookup's answer depends on the machine's resolver.
func TestAHostThatDoesNotResolveIsAConfigurationError(t *testing.T) {
	const host = "doorman.example.invalid"
	var dials atomic.Int32
	transport := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}}
	client := newTestClient(t, "http://"+host, doorman.Options{HTTPClient: &http.Client{Transport: transport}})
	_, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10"})
	var failure *doorman.Error
	if !errors.As(err, &failure) || failure.Kind != doorman.KindConfiguration || !strings.Contains(failure.Error(), "does not resolve") {
		t.Fatalf("want a configuration error, got %v", err)
	}
	if dials.Load() != 1 {
		t.Fatalf("never retried: %d dials", dials.Load())
	}
	// A temporary DNS failure is a network error, retried.
	dials.Store(0)
	transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}}
	}
	result, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10"})
	if err != nil || result.Reason != doorman.FailOpenNetworkError || dials.Load() != 3 {
		t.Fatalf("%+v %v after %d dials", result, err, dials.Load())
	}
}

func TestPingReadsHealthAndChecksTheKey(t *testing.T) {
	var healthStatus atomic.Int32
	healthStatus.Store(http.StatusOK)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/health":
			status := int(healthStatus.Load())
			report := "ok"
			redis := "up"
			if status != http.StatusOK {
				report, redis = "unavailable", "down"
			}
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"status":%q,"checks":{"postgres":{"status":"up","latency_ms":1},"neo4j":{"status":"up","latency_ms":2},"redis":{"status":%q,"latency_ms":3}}}`, report, redis)
		case r.URL.Path == "/v1/events" && r.URL.Query().Get("limit") == "1":
			if r.Header.Get("Authorization") != "Bearer sk_live_good" {
				http.Error(w, `{"error":"unauthorized","message":"Unknown key."}`, http.StatusUnauthorized)
				return
			}
			_, _ = io.WriteString(w, `{"events":[]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer server.Close()
	client := newTestClient(t, server.URL, doorman.Options{SecretKey: "sk_live_good"})
	ping, err := client.Ping(context.Background())
	if err != nil || ping.Status != doorman.HealthOK || ping.Mode != doorman.ModeLive || ping.Checks["neo4j"].LatencyMs != 2 || ping.Latency <= 0 {
		t.Fatalf("%+v %v", ping, err)
	}
	healthStatus.Store(http.StatusServiceUnavailable)
	ping, err = client.Ping(context.Background())
	if err != nil || ping.Status != doorman.HealthUnavailable || ping.Checks["redis"].Status != doorman.CheckDown {
		t.Fatalf("a 503 is an answer: %+v %v", ping, err)
	}
	healthStatus.Store(http.StatusOK)
	wrongKey := newTestClient(t, server.URL, doorman.Options{SecretKey: "sk_live_bad"})
	_, err = wrongKey.Ping(context.Background())
	var failure *doorman.Error
	if !errors.As(err, &failure) || failure.Status != 401 || failure.Code != doorman.CodeUnauthorized {
		t.Fatalf("a refused key: %v", err)
	}
	notDoorman := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"events":[],"hello":"world"}`)
	}))
	defer notDoorman.Close()
	_, err = newTestClient(t, notDoorman.URL, doorman.Options{MaxRetries: doorman.NoRetries}).Ping(context.Background())
	if !errors.As(err, &failure) || failure.Kind != doorman.KindInvalidResponse || !strings.Contains(err.Error(), "is BaseURL a Doorman") {
		t.Fatalf("not a Doorman: %v", err)
	}
}

func TestEventsFollowTheCursorAndStopWhenTheLoopDoes(t *testing.T) {
	var requests atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		q := r.URL.Query()
		if q.Get("limit") != "2" || q.Get("verdict") != "review" {
			http.Error(w, `{"error":"invalid_request","message":"query"}`, 400)
			return
		}
		page := map[string]string{"": "1", "c1": "2", "c2": "3"}[q.Get("cursor")]
		next := map[string]string{"1": "c1", "2": "c2"}[page]
		events := fmt.Sprintf(`[{"id":"evt_%sa","event_type":"signup","verdict":"review","reasons":[],"policy_version":"2026-01-01.1","created_at":"2026-01-01T00:00:00Z","review":{"status":"pending"},"risk":1},`+
			`{"id":"evt_%sb","event_type":"login","verdict":"review","reasons":[],"policy_version":"2026-01-01.1","created_at":"2026-01-01T00:00:00.5Z"}]`, page, page)
		body := `{"events":` + events
		if next != "" {
			body += fmt.Sprintf(`,"next_cursor":%q`, next)
		}
		_, _ = io.WriteString(w, body+"}")
	}))
	defer server.Close()
	client := newTestClient(t, server.URL, doorman.Options{})
	var ids []string
	for event, err := range client.Events.List(context.Background(), doorman.EventQuery{Limit: 2, Verdict: doorman.VerdictReview}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, event.ID)
		if event.ID == "evt_1a" && (event.Review == nil || event.Review.Status != doorman.ReviewPending || string(event.Extra["risk"]) != "1") {
			t.Fatalf("%+v", event)
		}
	}
	if strings.Join(ids, ",") != "evt_1a,evt_1b,evt_2a,evt_2b,evt_3a,evt_3b" || requests.Load() != 3 {
		t.Fatalf("ids %v after %d requests", ids, requests.Load())
	}
	requests.Store(0)
	for event, err := range client.Events.List(context.Background(), doorman.EventQuery{Limit: 2, Verdict: doorman.VerdictReview}) {
		if err != nil || event.ID == "evt_1b" {
			break
		}
	}
	if requests.Load() != 1 {
		t.Fatalf("leaving the loop on the first page still sent %d requests", requests.Load())
	}
	for _, err := range client.Events.Pages(context.Background(), doorman.EventQuery{Limit: 3}) {
		var failure *doorman.Error
		if !errors.As(err, &failure) || failure.Status != 400 {
			t.Fatalf("a failure is yielded: %v", err)
		}
	}
}

func TestAttachUserAndFeedback(t *testing.T) {
	var requests atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.Method == http.MethodPatch && r.URL.Path == "/v1/events/evt_1":
			var attach struct {
				ExternalUserID string `json:"external_user_id"`
			}
			_ = json.Unmarshal(body, &attach)
			if attach.ExternalUserID != "user_1" {
				http.Error(w, `{"error":"conflict","message":"Another user is bound."}`, http.StatusConflict)
				return
			}
			_, _ = io.WriteString(w, `{"ok":true}`)
		case r.Method == http.MethodPost && r.URL.Path == "/v1/feedback":
			if string(body) != `{"outcome":"chargeback","subject":{"kind":"external_user_id","value":"user_1"}}` {
				http.Error(w, `{"error":"invalid_request","message":"`+string(body)+`"}`, 400)
				return
			}
			_, _ = io.WriteString(w, `{"ok":true,"duplicate":true}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer server.Close()
	client := newTestClient(t, server.URL, doorman.Options{})
	ctx := context.Background()
	if err := client.Events.AttachUser(ctx, "evt_1", "user_1"); err != nil {
		t.Fatal(err)
	}
	requests.Store(0)
	err := client.Events.AttachUser(ctx, "evt_1", "user_2")
	var failure *doorman.Error
	if !errors.As(err, &failure) || failure.Code != doorman.CodeConflict || failure.Retryable() || requests.Load() != 1 {
		t.Fatalf("409 conflict, never retried: %v after %d requests", err, requests.Load())
	}
	receipt, err := client.Feedback.Report(ctx, doorman.FeedbackReport{
		Subject: doorman.FeedbackSubject{Kind: doorman.SubjectExternalUserID, Value: "user_1"},
		Outcome: doorman.OutcomeChargeback,
	})
	if err != nil || !receipt.Duplicate {
		t.Fatalf("%+v %v", receipt, err)
	}
	if _, err := client.Events.Get(ctx, ""); !errors.Is(err, doorman.ErrInvalidArgument) {
		t.Fatalf("empty id: %v", err)
	}
}

// Each attempt's answer is read on its own: halves of a verdict in two unreadable answers do not
// add up to one.
func TestAnUnreadableAnswerLeavesNothingForTheNextAttempt(t *testing.T) {
	var requests atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			_, _ = io.WriteString(w, `{"id":"evt_1","verdict":"allow","policy_version":"2026-01-01.1"}`)
			return
		}
		_, _ = io.WriteString(w, `{"verdict":"allow","reasons":[]}`)
	}))
	defer server.Close()
	result, err := newTestClient(t, server.URL, doorman.Options{}).Screen(context.Background(), doorman.Login{})
	if err != nil || !result.FailedOpen || result.Reason != doorman.FailOpenInvalidResponse || requests.Load() != 3 {
		t.Fatalf("%+v %v after %d requests", result, err, requests.Load())
	}
}
