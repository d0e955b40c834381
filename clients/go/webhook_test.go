package doorman_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	doorman "github.com/doorman-oss/doorman/clients/go"
)

func sign(secret, body string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

const deliveredBody = `{"type":"review.resolved","event_id":"evt_1","resolution":"denied","final_verdict":"block",` +
	`"resolved_at":"2026-11-24T22:03:17.412Z","external_user_id":"user_1","delivery_id":"whd_1","retry_hint":"x"}`

func deliver(t *testing.T, url, body string, header http.Header) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestTheMiddlewareAnswersWhatDoormanRetriesOn(t *testing.T) {
	var secrets atomic.Value
	secrets.Store([]string{"whsec_old"})
	var failNext atomic.Bool
	var handled atomic.Int32
	var last atomic.Pointer[doorman.ReviewResolved]
	receiver := httptest.NewServer(doorman.WebhookHandler(
		func() []string { return secrets.Load().([]string) },
		func(ctx context.Context, event *doorman.ReviewResolved) error {
			handled.Add(1)
			last.Store(event)
			if failNext.Swap(false) {
				return errors.New("the database is down")
			}
			return nil
		},
	))
	defer receiver.Close()
	signed := http.Header{"Service-Signature": {sign("whsec_new", deliveredBody) + " " + sign("whsec_old", deliveredBody)}}

	if status := deliver(t, receiver.URL, deliveredBody, signed); status != http.StatusNoContent || handled.Load() != 1 {
		t.Fatalf("a rotated delivery: %d, handled %d", status, handled.Load())
	}
	event := last.Load()
	if event.Resolution != doorman.ResolutionDenied || event.FinalVerdict != doorman.VerdictBlock || event.DeliveryID != "whd_1" ||
		string(event.Extra["retry_hint"]) != `"x"` || event.ResolvedAt.Nanosecond() != 412000000 {
		t.Fatalf("%+v", event)
	}
	failNext.Store(true)
	if status := deliver(t, receiver.URL, deliveredBody, signed); status != http.StatusInternalServerError {
		t.Fatalf("a failing handler must answer 500 so Doorman retries: %d", status)
	}
	// The secrets are read per delivery: a receiver that moved to another secret refuses.
	secrets.Store([]string{"whsec_other"})
	if status := deliver(t, receiver.URL, deliveredBody, signed); status != http.StatusUnauthorized || handled.Load() != 2 {
		t.Fatalf("a wrong secret: %d, handled %d", status, handled.Load())
	}
	secrets.Store([]string{"whsec_old"})
	if status := deliver(t, receiver.URL, strings.Replace(deliveredBody, "denied", "approved", 1), signed); status != http.StatusUnauthorized {
		t.Fatalf("a tampered body: %d", status)
	}
	res, err := http.Get(receiver.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d", res.StatusCode)
	}
	huge := `{"type":"review.resolved","pad":"` + strings.Repeat("x", doorman.MaxWebhookBodyBytes) + `"}`
	if status := deliver(t, receiver.URL, huge, http.Header{"Service-Signature": {sign("whsec_old", huge)}}); status != http.StatusRequestEntityTooLarge {
		t.Fatalf("a body past the bound: %d", status)
	}
	if handled.Load() != 2 {
		t.Fatalf("handled %d", handled.Load())
	}
}

func TestVerifyWebhookLooksAtNoMoreThan32Signatures(t *testing.T) {
	good := sign("whsec_old", deliveredBody)
	filler := strings.Repeat(sign("whsec_wrong", deliveredBody)+" ", 32)
	_, err := doorman.VerifyWebhook([]byte(deliveredBody), http.Header{"Service-Signature": {filler + good}}, []string{"whsec_old"})
	var failure *doorman.WebhookError
	if !errors.As(err, &failure) || failure.Reason != doorman.WebhookSignatureMismatch {
		t.Fatalf("the 33rd signature is not looked at: %v", err)
	}
	event, err := doorman.VerifyWebhook([]byte(deliveredBody), http.Header{"Service-Signature": {good + " " + filler}}, []string{"whsec_old"})
	if err != nil || event.WebhookType() != doorman.ReviewResolvedType {
		t.Fatalf("%v %v", event, err)
	}
}
