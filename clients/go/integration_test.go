// Integration tests against a real Doorman: the README's first integration as written (the
// example program built and run), fail-open against a stopped and a silent server, Ping's
// budget, retries across a 503 through the flaky proxy, idempotent replay, and a real webhook
// delivery verified during a secret rotation. They need the environment `npm test` sets
// (test/client/go-client.test.ts); without DOORMAN_BASE_URL they are skipped.
package doorman_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	doorman "github.com/doorman-oss/doorman/clients/go"
)

type integration struct {
	baseURL, secretKey, reviewIP, flakyURL, controlURL string
}

func integrationEnv(t *testing.T) integration {
	t.Helper()
	env := integration{
		baseURL:    os.Getenv("DOORMAN_BASE_URL"),
		secretKey:  os.Getenv("DOORMAN_SECRET_KEY"),
		reviewIP:   os.Getenv("DOORMAN_REVIEW_IP"),
		flakyURL:   os.Getenv("DOORMAN_FLAKY_URL"),
		controlURL: os.Getenv("DOORMAN_CONTROL_URL"),
	}
	if env.baseURL == "" {
		t.Skip("integration test skipped: it needs a real Doorman. `npm test` runs it (test/client/go-client.test.ts); " +
			"by hand, set DOORMAN_BASE_URL, DOORMAN_SECRET_KEY, DOORMAN_REVIEW_IP, DOORMAN_FLAKY_URL and DOORMAN_CONTROL_URL " +
			"(clients/test-vectors/README.md describes them) and run scripts/check.sh")
	}
	for name, value := range map[string]string{
		"DOORMAN_SECRET_KEY": env.secretKey, "DOORMAN_REVIEW_IP": env.reviewIP,
		"DOORMAN_FLAKY_URL": env.flakyURL, "DOORMAN_CONTROL_URL": env.controlURL,
	} {
		if value == "" {
			t.Fatalf("DOORMAN_BASE_URL is set but %s is not", name)
		}
	}
	return env
}

func (env integration) client(t *testing.T, options doorman.Options) *doorman.Client {
	t.Helper()
	if options.BaseURL == "" {
		options.BaseURL = env.baseURL
	}
	options.SecretKey = env.secretKey
	client, err := doorman.New(options)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// control calls the control server: JSON in, JSON out.
func (env integration) control(t *testing.T, method, path string, in, out any) {
	t.Helper()
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, env.controlURL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("control %s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("control %s %s answered %d: %s", method, path, res.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("control %s %s: %v (%s)", method, path, err, data)
		}
	}
}

func (env integration) setWebhook(t *testing.T, receiverURL string) string {
	t.Helper()
	var answer struct {
		Secret string `json:"secret"`
	}
	env.control(t, http.MethodPost, "/webhook", map[string]string{"url": receiverURL}, &answer)
	if !strings.HasPrefix(answer.Secret, "whsec_") {
		t.Fatalf("no webhook secret: %+v", answer)
	}
	return answer.Secret
}

func (env integration) resolve(t *testing.T, eventID string, resolution doorman.Resolution) string {
	t.Helper()
	var answer struct {
		DeliveryID string `json:"delivery_id"`
	}
	env.control(t, http.MethodPost, "/resolve", map[string]string{"event_id": eventID, "resolution": string(resolution)}, &answer)
	if answer.DeliveryID == "" {
		t.Fatal("resolving the review queued no delivery")
	}
	return answer.DeliveryID
}

func (env integration) deliveryAttempts(t *testing.T, deliveryID string) []int {
	t.Helper()
	var answer struct {
		Attempts []int `json:"attempts"`
	}
	env.control(t, http.MethodGet, "/deliveries/"+url.PathEscape(deliveryID), nil, &answer)
	return answer.Attempts
}

// until polls check until it holds or the deadline passes.
func until(t *testing.T, within time.Duration, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", within, what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func freePort(t *testing.T) string {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	return fmt.Sprint(listener.Addr().(*net.TCPAddr).Port)
}

func goCommand() string {
	if path, err := exec.LookPath("go"); err == nil {
		return path
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// processOutput collects a process's log lines as they come.
type processOutput struct {
	mu    sync.Mutex
	lines []string
}

func (o *processOutput) scan(r io.Reader) {
	scanner := bufio.NewScanner(r)
	for scanner.Scan() {
		o.mu.Lock()
		o.lines = append(o.lines, scanner.Text())
		o.mu.Unlock()
	}
}

func (o *processOutput) find(pattern *regexp.Regexp) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, line := range o.lines {
		if match := pattern.FindStringSubmatch(line); match != nil {
			return match
		}
	}
	return nil
}

func (o *processOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.lines, "\n")
}

// The README's first integration, built from examples/firstintegration as it is and run as its
// own process: Ping at start-up, a signup screened (a review, by the test-mode fixture email),
// and the review's denial delivered by the real worker to the example's webhook route and
// verified by the middleware.
func TestIntegrationTheReadmeFirstIntegrationRunsAsWritten(t *testing.T) {
	env := integrationEnv(t)
	binary := filepath.Join(t.TempDir(), "firstintegration")
	build := exec.Command(goCommand(), "build", "-o", binary, "./examples/firstintegration")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/firstintegration: %v\n%s", err, out)
	}
	port := freePort(t)
	secret := env.setWebhook(t, "http://127.0.0.1:"+port+"/webhooks/doorman")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	example := exec.CommandContext(ctx, binary)
	example.Env = append(os.Environ(),
		"DOORMAN_URL="+env.baseURL, "DOORMAN_SECRET_KEY="+env.secretKey, "DOORMAN_WEBHOOK_SECRETS="+secret, "PORT="+port)
	stderr, err := example.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var output processOutput
	if err := example.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { output.scan(stderr); close(done) }()
	defer func() {
		cancel()
		<-done
		_ = example.Wait()
		if t.Failed() {
			t.Logf("the example's output:\n%s", output.String())
		}
	}()
	until(t, 10*time.Second, "the example to listen", func() bool {
		return output.find(regexp.MustCompile(`listening on `)) != nil
	})
	if output.find(regexp.MustCompile(`doorman is ok, test mode`)) == nil {
		t.Fatalf("the example's Ping did not report ok, test mode:\n%s", output.String())
	}

	email := "ada+" + randomHex(4) + "@review.doorman.test"
	res, err := http.PostForm("http://127.0.0.1:"+port+"/signup", url.Values{"email": {email}})
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		UserID string `json:"user_id"`
	}
	_ = json.NewDecoder(res.Body).Decode(&created)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated || created.UserID == "" {
		t.Fatalf("signup answered %d %+v", res.StatusCode, created)
	}
	// The line is written before the answer, and read from the pipe a moment later.
	createdLine := regexp.MustCompile(`created (\S+) \(` + regexp.QuoteMeta(email) + `\): (\w+), event (\S+)`)
	var logged []string
	until(t, 5*time.Second, "the example to log the signup", func() bool { logged = output.find(createdLine); return logged != nil })
	if logged[1] != created.UserID || logged[2] != "review" {
		t.Fatalf("the example did not log a review for %s:\n%s", created.UserID, output.String())
	}
	eventID := logged[3]

	deliveryID := env.resolve(t, eventID, doorman.ResolutionDenied)
	revoke := regexp.MustCompile(`revoke ` + regexp.QuoteMeta(created.UserID) + ` \(event ` + regexp.QuoteMeta(eventID) + `\)`)
	until(t, 20*time.Second, "the example to revoke the denied signup", func() bool { return output.find(revoke) != nil })
	until(t, 5*time.Second, "the delivery to be recorded as 204", func() bool {
		return slices.Contains(env.deliveryAttempts(t, deliveryID), http.StatusNoContent)
	})
}

// A real delivery during a rotation: the receiver (the middleware) still holds only the old
// secret while Doorman signs with the new and the old; then a receiver holding a wrong secret
// answers 401, and Doorman retries the delivery until the right secret is back.
func TestIntegrationAWebhookIsVerifiedDuringARotation(t *testing.T) {
	env := integrationEnv(t)
	var secrets atomic.Value
	received := make(chan *doorman.ReviewResolved, 4)
	var signatures, body atomic.Value
	signatures.Store("")
	body.Store("")
	handler := doorman.WebhookHandler(
		func() []string { return secrets.Load().([]string) },
		func(_ context.Context, event *doorman.ReviewResolved) error {
			received <- event
			return nil
		},
	)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		signatures.Store(r.Header.Get("Service-Signature"))
		body.Store(string(raw))
		r.Body = io.NopCloser(bytes.NewReader(raw))
		handler.ServeHTTP(w, r)
	}))
	defer receiver.Close()

	oldSecret := env.setWebhook(t, receiver.URL+"/webhooks/doorman")
	newSecret := env.setWebhook(t, receiver.URL+"/webhooks/doorman")
	if newSecret == oldSecret {
		t.Fatal("the second webhook set made no new secret")
	}
	secrets.Store([]string{oldSecret})

	client := env.client(t, doorman.Options{ScreenTimeout: 10 * time.Second})
	review := func() doorman.ScreenResult {
		t.Helper()
		result, err := client.Screen(context.Background(), doorman.Signup{
			IP: env.reviewIP, Email: "grace." + randomHex(4) + "@example.com", ExternalUserID: "user_" + randomHex(6),
		})
		if err != nil || result.FailedOpen || result.Verdict != doorman.VerdictReview {
			t.Fatalf("a signup from %s should be a review: %+v %v", env.reviewIP, result, err)
		}
		return result
	}

	first := review()
	deliveryID := env.resolve(t, first.ID, doorman.ResolutionDenied)
	select {
	case event := <-received:
		if event.EventID != first.ID || event.Resolution != doorman.ResolutionDenied || event.FinalVerdict != doorman.VerdictBlock {
			t.Fatalf("delivered %+v for event %s", event, first.ID)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no delivery verified in 20 s; attempts %v", env.deliveryAttempts(t, deliveryID))
	}
	// During the overlap the header carries the new secret's signature first, and the old one's
	// (and those of any earlier secret still in its overlap).
	header := strings.Fields(signatures.Load().(string))
	delivered := body.Load().(string)
	if len(header) < 2 || header[0] != sign(newSecret, delivered) || !slices.Contains(header, sign(oldSecret, delivered)) {
		t.Fatalf("the delivery was not signed with the new secret first and the old one: %v", header)
	}
	until(t, 5*time.Second, "the delivery to be recorded as 204", func() bool {
		return slices.Contains(env.deliveryAttempts(t, deliveryID), http.StatusNoContent)
	})

	secrets.Store([]string{"whsec_" + randomHex(20)})
	second := review()
	deliveryID = env.resolve(t, second.ID, doorman.ResolutionDenied)
	until(t, 20*time.Second, "a 401 from the receiver holding a wrong secret", func() bool {
		return slices.Contains(env.deliveryAttempts(t, deliveryID), http.StatusUnauthorized)
	})
	select {
	case event := <-received:
		t.Fatalf("a delivery that did not verify reached the handler: %+v", event)
	default:
	}
	// Back to a secret Doorman signs with: its retry is verified.
	secrets.Store([]string{newSecret})
	select {
	case event := <-received:
		if event.EventID != second.ID {
			t.Fatalf("delivered %+v", event)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("Doorman did not retry after the 401; attempts %v", env.deliveryAttempts(t, deliveryID))
	}
}

func TestIntegrationFailOpenWithoutAServer(t *testing.T) {
	env := integrationEnv(t)
	t.Parallel()

	t.Run("a stopped server", func(t *testing.T) {
		t.Parallel()
		listener, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		stopped := "http://" + listener.Addr().String()
		listener.Close()
		client := env.client(t, doorman.Options{BaseURL: stopped})
		result, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10", Email: "ada@example.com"})
		if err != nil || !result.FailedOpen || result.Verdict != doorman.VerdictAllow || result.Reason != doorman.FailOpenNetworkError {
			t.Fatalf("%+v %v", result, err)
		}
		if result.Err.Attempts != 3 || result.IdempotencyKey == "" {
			t.Fatalf("retried twice, then failed open: %+v", result.Err)
		}
	})

	t.Run("a server that accepts and never answers", func(t *testing.T) {
		t.Parallel()
		silent := silentServer(t)
		client := env.client(t, doorman.Options{BaseURL: silent})
		started := time.Now()
		result, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10", Email: "ada@example.com"})
		took := time.Since(started)
		if err != nil || !result.FailedOpen || result.Reason != doorman.FailOpenTimeout {
			t.Fatalf("%+v %v", result, err)
		}
		if took < 2*time.Second || took > 3*time.Second {
			t.Fatalf("took %v; the default budget is 2 s", took)
		}
	})

	t.Run("Ping against the silent server, within its own 3 s budget", func(t *testing.T) {
		t.Parallel()
		client := env.client(t, doorman.Options{BaseURL: silentServer(t)})
		started := time.Now()
		_, err := client.Ping(context.Background())
		took := time.Since(started)
		var failure *doorman.Error
		if !errors.As(err, &failure) || failure.Kind != doorman.KindTimeout {
			t.Fatalf("want a timeout, got %v", err)
		}
		if took < doorman.PingTimeout || took > doorman.PingTimeout+time.Second {
			t.Fatalf("took %v; Ping's budget is %v", took, doorman.PingTimeout)
		}
	})
}

func TestIntegrationARetryAcrossA503KeepsTheKeyAndTheBytes(t *testing.T) {
	env := integrationEnv(t)
	t.Parallel()
	env.control(t, http.MethodPost, "/flaky", map[string]any{"count": 1, "status": 503, "retry_after": "1"}, nil)
	var retries []doorman.RetryInfo
	client := env.client(t, doorman.Options{
		BaseURL:       env.flakyURL,
		ScreenTimeout: 5 * time.Second,
		OnRetry:       func(info doorman.RetryInfo) { retries = append(retries, info) },
	})
	result, err := client.Screen(context.Background(), doorman.Signup{IP: "203.0.113.10", Email: "lin." + randomHex(4) + "@example.com"})
	if err != nil || result.FailedOpen || result.ID == "" {
		t.Fatalf("%+v %v", result, err)
	}
	if len(retries) != 1 || retries[0].Delay != time.Second || retries[0].Err.Status != http.StatusServiceUnavailable {
		t.Fatalf("one retry after the 503's retry-after: %+v", retries)
	}
	var seen struct {
		Requests []struct {
			Method         string `json:"method"`
			Path           string `json:"path"`
			IdempotencyKey string `json:"idempotency_key"`
			BodySHA256     string `json:"body_sha256"`
			Status         int    `json:"status"`
		} `json:"requests"`
	}
	env.control(t, http.MethodGet, "/flaky", nil, &seen)
	var verdicts []int
	for i, r := range seen.Requests {
		if r.Path != "/v1/verdict" {
			continue
		}
		verdicts = append(verdicts, r.Status)
		if r.IdempotencyKey != result.IdempotencyKey || r.BodySHA256 != seen.Requests[0].BodySHA256 {
			t.Fatalf("request %d: key %q body %s; want key %q, the same body as the first", i, r.IdempotencyKey, r.BodySHA256, result.IdempotencyKey)
		}
	}
	if !slices.Equal(verdicts, []int{503, 200}) {
		t.Fatalf("the proxy saw %v", verdicts)
	}
	stored, err := env.client(t, doorman.Options{}).Events.Get(context.Background(), result.ID)
	if err != nil || stored.ID != result.ID || stored.Verdict != result.Verdict || stored.EventType != doorman.EventSignup {
		t.Fatalf("%+v %v", stored, err)
	}
}

func TestIntegrationIdempotentReplay(t *testing.T) {
	env := integrationEnv(t)
	t.Parallel()
	client := env.client(t, doorman.Options{ScreenTimeout: 10 * time.Second})
	ctx := context.Background()
	key := "go-replay-" + randomHex(8)
	event := doorman.Signup{IP: "203.0.113.10", Email: "ada." + randomHex(4) + "@example.com", Context: map[string]any{"plan": "pro", "seats": 3}}
	first, err := client.Screen(ctx, event, doorman.WithIdempotencyKey(key))
	if err != nil || first.FailedOpen {
		t.Fatalf("%+v %v", first, err)
	}
	again, err := client.Screen(ctx, event, doorman.WithIdempotencyKey(key))
	if err != nil || again.ID != first.ID || again.Verdict != first.Verdict || again.IdempotencyKey != key {
		t.Fatalf("the same key and event replay the decision: %+v %v", again, err)
	}
	event.Email = "someone.else@example.com"
	changed, err := client.Screen(ctx, event, doorman.WithIdempotencyKey(key))
	var failure *doorman.Error
	if !errors.As(err, &failure) || failure.Status != http.StatusConflict || failure.Code != doorman.CodeIdempotencyConflict || failure.Retryable() {
		t.Fatalf("a changed event under the same key is 409 idempotency_conflict, even with fail-open on: %+v %v", changed, err)
	}
	if failure.Attempts != 1 || changed.FailedOpen {
		t.Fatalf("never retried, never failed open: %+v", failure)
	}
}

func TestIntegrationEventsFeedbackAndPing(t *testing.T) {
	env := integrationEnv(t)
	t.Parallel()
	client := env.client(t, doorman.Options{ScreenTimeout: 10 * time.Second})
	ctx := context.Background()

	ping, err := client.Ping(ctx)
	if err != nil || ping.Status != doorman.HealthOK || ping.Mode != doorman.ModeTest || len(ping.Checks) == 0 {
		t.Fatalf("%+v %v", ping, err)
	}

	var ids []string
	for i := 0; i < 3; i++ {
		result, err := client.Screen(ctx, doorman.Login{Email: "eve." + randomHex(4) + "@example.com"})
		if err != nil || result.FailedOpen {
			t.Fatalf("%+v %v", result, err)
		}
		ids = append(ids, result.ID)
	}
	var listed []string
	pages := 0
	for page, err := range client.Events.Pages(ctx, doorman.EventQuery{Limit: 2, EventType: doorman.EventLogin}) {
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, event := range page.Events {
			listed = append(listed, event.ID)
		}
	}
	for _, id := range ids {
		if !slices.Contains(listed, id) {
			t.Fatalf("%s not listed in %v", id, listed)
		}
	}
	if pages < 2 {
		t.Fatalf("3 logins at 2 a page make at least 2 pages, got %d", pages)
	}

	user := "user_" + randomHex(6)
	if err := client.Events.AttachUser(ctx, ids[0], user); err != nil {
		t.Fatal(err)
	}
	if err := client.Events.AttachUser(ctx, ids[0], user); err != nil {
		t.Fatalf("the same id again is fine: %v", err)
	}
	err = client.Events.AttachUser(ctx, ids[0], "user_other")
	var failure *doorman.Error
	if !errors.As(err, &failure) || failure.Code != doorman.CodeConflict {
		t.Fatalf("another id is 409 conflict: %v", err)
	}
	stored, err := client.Events.Get(ctx, ids[0])
	if err != nil || stored.ExternalUserID != user {
		t.Fatalf("%+v %v", stored, err)
	}
	if _, err := client.Events.Get(ctx, "evt_does_not_exist"); !errors.As(err, &failure) || failure.Code != doorman.CodeNotFound {
		t.Fatalf("an unknown id is 404 not_found: %v", err)
	}

	report := doorman.FeedbackReport{Subject: doorman.FeedbackSubject{Kind: doorman.SubjectEventID, Value: ids[1]}, Outcome: doorman.OutcomeChargeback}
	receipt, err := client.Feedback.Report(ctx, report)
	if err != nil || !receipt.OK || receipt.Duplicate {
		t.Fatalf("%+v %v", receipt, err)
	}
	receipt, err = client.Feedback.Report(ctx, report)
	if err != nil || !receipt.Duplicate {
		t.Fatalf("a repeated report is a duplicate: %+v %v", receipt, err)
	}

	_, err = client.Screen(ctx, doorman.Signup{IP: "not an address"})
	if !errors.As(err, &failure) || failure.Code != doorman.CodeInvalidRequest || len(failure.Issues) == 0 {
		t.Fatalf("a bad ip is 400 invalid_request with issues, even with fail-open on: %v", err)
	}
}
