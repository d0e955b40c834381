// Package doorman is the Go client for Doorman, the abuse-screening service: it screens funnel
// events inline (Client.Screen) and fails open when Doorman is slow or down, retries by the
// contract's rules with the same Idempotency-Key and the same bytes, reads and annotates stored
// events, reports feedback, and verifies the review.resolved webhook (VerifyWebhook,
// WebhookHandler) against the raw body, during secret rotations too.
//
// Every call takes a context.Context first. Cancelling it stops the call at once and returns
// the context's error: a cancelled call never fails open, because the caller has given up on it.
//
// Open sets stay open: reason codes, error codes, recommended actions and signal sources are
// string types with constants for the values known today; a value added to Doorman later passes
// through as it is. Response fields this version does not know are kept in Extra.
package doorman
