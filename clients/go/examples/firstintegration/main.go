// A first integration: a signup screened by Doorman before the account is created, and the
// review.resolved webhook verified by the client's middleware, on net/http alone.
//
//	DOORMAN_URL=http://localhost:8080 DOORMAN_SECRET_KEY=sk_test_… DOORMAN_WEBHOOK_SECRETS=whsec_… go run .
//	curl -d email=ada@example.com localhost:3000/signup
package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log"
	"net"
	"net/http"
	"os"
	"strings"

	doorman "github.com/doorman-oss/doorman/clients/go"
)

func main() {
	client, err := doorman.New(doorman.Options{
		SecretKey: os.Getenv("DOORMAN_SECRET_KEY"),
		BaseURL:   os.Getenv("DOORMAN_URL"),
	})
	if err != nil {
		log.Fatal(err) // says what is wrong with the key or the URL
	}
	// A wrong URL or key stops the deploy here, instead of failing open on every signup.
	ping, err := client.Ping(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("doorman is %s, %s mode", ping.Status, ping.Mode)

	// During a rotation, hold both secrets: DOORMAN_WEBHOOK_SECRETS="whsec_new whsec_old".
	secrets := strings.Fields(strings.ReplaceAll(os.Getenv("DOORMAN_WEBHOOK_SECRETS"), ",", " "))

	mux := http.NewServeMux()
	mux.HandleFunc("POST /signup", signup(client))
	mux.Handle("POST /webhooks/doorman", doorman.WebhookHandler(
		func() []string { return secrets },
		func(ctx context.Context, event *doorman.ReviewResolved) error {
			if event.Resolution == doorman.ResolutionDenied {
				// Revoke the account (idempotently: a retried delivery comes again).
				log.Printf("revoke %s (event %s)", cmp.Or(event.ExternalUserID, event.Email), event.EventID)
			}
			return nil // 204; an error answers 500 and Doorman delivers again later
		},
	))

	addr := "127.0.0.1:" + cmp.Or(os.Getenv("PORT"), "3000")
	log.Printf("listening on %s", addr)
	log.Fatal(http.ListenAndServe(addr, mux))
}

func signup(client *doorman.Client) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		email := r.FormValue("email")
		if email == "" {
			http.Error(w, "An email address is required.", http.StatusBadRequest)
			return
		}
		// The address of the person signing up. Behind your own proxy, take the one it forwards.
		ip, _, _ := net.SplitHostPort(r.RemoteAddr)
		userID := newUserID()

		result, err := client.Screen(r.Context(), doorman.Signup{
			IP:             ip,
			Email:          email,
			ExternalUserID: userID,
			UserAgent:      r.UserAgent(),
			DeviceToken:    r.FormValue("device_token"),
		})
		if err != nil {
			// Our own mistake (400 with Issues, 401, 409) or a configuration error: never silent.
			log.Printf("screening failed: %v", err)
			http.Error(w, "Please try again later.", http.StatusInternalServerError)
			return
		}
		if result.FailedOpen {
			log.Printf("doorman failed open: %s (%v)", result.Reason, result.Err)
		} else if len(result.Degraded) > 0 {
			log.Printf("doorman decided without %v, event %s", result.Degraded, result.ID)
		}
		if result.Verdict == doorman.VerdictBlock {
			http.Error(w, "We could not create your account.", http.StatusForbidden)
			return
		}
		// allow and review alike: create the account; a denied review arrives as a webhook.
		log.Printf("created %s (%s): %s, event %s", userID, email, result.Verdict, result.ID)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]string{"user_id": userID})
	}
}

func newUserID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "user_" + hex.EncodeToString(b)
}
