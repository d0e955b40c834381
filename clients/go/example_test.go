// The README's snippets beyond the first integration, compiled with the suite (examples without
// an Output comment are compiled, not run: they need a Doorman). readme_test.go fails when a Go
// block of the README is not in this file or in examples/firstintegration/main.go.
package doorman_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	doorman "github.com/doorman-oss/doorman/clients/go"
)

func ExampleClient_Screen_checkout() {
	client, err := doorman.New(doorman.Options{
		SecretKey:     os.Getenv("DOORMAN_SECRET_KEY"),
		BaseURL:       os.Getenv("DOORMAN_URL"),
		ScreenTimeout: 1500 * time.Millisecond, // the whole call, retries included
		OnRetry: func(info doorman.RetryInfo) {
			log.Printf("doorman retry %d in %v: %v", info.Retry, info.Delay, info.Err)
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	result, err := client.Screen(context.Background(), doorman.CheckoutAttempt{
		IP:             "203.0.113.7",
		ExternalUserID: "usr_1842",
		Payment: &doorman.Payment{
			CardFingerprint: "fp_9Xk2",
			CardFunding:     doorman.FundingPrepaid,
			CardCountry:     "US",
			Amount:          doorman.Int64(4900),
			Currency:        "usd",
		},
	}, doorman.WithIdempotencyKey("checkout-attempt-77"))
	var failure *doorman.Error
	switch {
	case errors.As(err, &failure) && failure.Code == doorman.CodeInvalidRequest:
		for _, issue := range failure.Issues {
			log.Printf("field %s: %s", issue.Path, issue.Message)
		}
	case err != nil:
		log.Printf("not screened: %v", err) // 401, 409, a configuration error, ctx ended
	case result.FailedOpen:
		log.Printf("failed open (%s): screen again later with key %s", result.Reason, result.IdempotencyKey)
	case result.Verdict == doorman.VerdictBlock:
		log.Printf("refuse the payment, generically")
	default:
		for _, reason := range result.Reasons {
			if !reason.Code.Known() {
				log.Printf("a reason code this client does not know yet: %s", reason.Code) // informational
			}
		}
	}
}

func ExampleEventsService_List() {
	client, err := doorman.New(doorman.Options{SecretKey: os.Getenv("DOORMAN_SECRET_KEY"), BaseURL: os.Getenv("DOORMAN_URL")})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	var pending []string
	for event, err := range client.Events.List(ctx, doorman.EventQuery{Verdict: doorman.VerdictReview, Limit: 100}) {
		if err != nil {
			log.Fatal(err)
		}
		if event.Review != nil && event.Review.Status == doorman.ReviewPending {
			pending = append(pending, event.ID)
		}
		if len(pending) == 10 {
			break // leaving the loop stops the paging
		}
	}
	if len(pending) > 0 {
		// Write-once: the same id again is fine, another is 409 conflict.
		if err := client.Events.AttachUser(ctx, pending[0], "usr_1842"); err != nil {
			log.Print(err)
		}
	}
	receipt, err := client.Feedback.Report(ctx, doorman.FeedbackReport{
		Subject: doorman.FeedbackSubject{Kind: doorman.SubjectExternalUserID, Value: "usr_1842"},
		Outcome: doorman.OutcomeChargeback,
		Note:    "dispute dp_123",
	})
	if err == nil && receipt.Duplicate {
		log.Print("already reported: nothing new stored")
	}
}

func ExampleVerifyWebhook() {
	secrets := []string{os.Getenv("WHSEC_NEW"), os.Getenv("WHSEC_OLD")} // both, during a rotation
	http.HandleFunc("POST /hooks/doorman", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, doorman.MaxWebhookBodyBytes))
		if err != nil {
			http.Error(w, "unreadable", http.StatusBadRequest)
			return
		}
		event, err := doorman.VerifyWebhook(body, r.Header, secrets) // the raw bytes, before any JSON parsing
		var failure *doorman.WebhookError
		if errors.As(err, &failure) {
			http.Error(w, string(failure.Reason), http.StatusUnauthorized)
			return
		}
		if resolved, ok := event.(*doorman.ReviewResolved); ok && resolved.Resolution == doorman.ResolutionDenied {
			log.Printf("revoke %s %s (delivery %s)", resolved.ExternalUserID, resolved.Email, resolved.DeliveryID)
		}
		w.WriteHeader(http.StatusNoContent) // *doorman.UnknownWebhook too: a type this version does not know
	})
}
