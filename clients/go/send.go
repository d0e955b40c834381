// One call under the contract's retry rules (§7): within one time budget, a 429 or 5xx is
// retried after its Retry-After when it has one, and a 5xx, a network failure or an unreadable
// answer otherwise after a short jittered backoff; every other answer is final. Every attempt
// sends the same request (the same Idempotency-Key, the same bytes), so a retry can never be
// judged twice.
package doorman

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"
)

const (
	backoffBase = 100 * time.Millisecond
	backoffCap  = 2 * time.Second
	// An answer larger than this is not the contract's (a page of 100 events is far smaller).
	maxAnswerBytes = 32 << 20
	userAgent      = "doorman-go-client (contract " + ContractVersion + ")"
)

type request struct {
	method string
	// Relative to the base URL, escaped, with its query.
	path string
	// Sent as it is on every attempt; nil for none.
	body   []byte
	header http.Header
	// A status that is an answer for this call although not 2xx (Ping: /health's 503).
	accept func(status int) bool
	// Reads a success answer; an error makes it an invalid_response (retried).
	decode func(status int, body []byte) error
}

// send runs the request until it succeeds, fails for good, runs out of retries or of budget.
// It returns nil, an *Error, or (when ctx ends) an error wrapping ctx.Err().
func (c *Client) send(ctx context.Context, req request, timeout time.Duration, maxRetries int) error {
	deadline := time.Now().Add(timeout)
	callCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	for retry := 0; ; retry++ {
		err := c.once(ctx, callCtx, req)
		if err == nil {
			return nil
		}
		var failure *Error
		if !errors.As(err, &failure) {
			return err
		}
		failure.Attempts = retry + 1
		if !failure.Retryable() || retry >= maxRetries {
			return failure
		}
		delay := retryDelay(failure, retry)
		// A wait that would end past the budget cannot help: honour Retry-After by giving up.
		if !time.Now().Add(delay).Before(deadline) {
			return failure
		}
		if c.onRetry != nil {
			c.onRetry(RetryInfo{Retry: retry + 1, Delay: delay, Err: failure})
		}
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-callCtx.Done():
			timer.Stop()
			if ctx.Err() != nil {
				return cancelled(ctx)
			}
			return failure
		}
	}
}

func (c *Client) once(ctx, callCtx context.Context, req request) error {
	if callCtx.Err() != nil {
		if ctx.Err() != nil {
			return cancelled(ctx)
		}
		return &Error{Kind: KindTimeout, Message: "no answer from Doorman within the time budget"}
	}
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body)
	}
	httpReq, err := http.NewRequestWithContext(callCtx, req.method, c.baseURL+req.path, body)
	if err != nil {
		return &Error{Kind: KindConfiguration, Message: "cannot make a request to BaseURL: " + err.Error(), cause: err}
	}
	for name, values := range req.header {
		httpReq.Header[name] = values
	}
	httpReq.Header.Set("Authorization", "Bearer "+c.secretKey)
	httpReq.Header.Set("Accept", "application/json")
	httpReq.Header.Set("User-Agent", userAgent)
	if req.body != nil {
		httpReq.Header.Set("Content-Type", "application/json")
	}

	res, err := c.http.Do(httpReq)
	if err != nil {
		return classify(ctx, callCtx, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes+1))
	if err != nil {
		return classify(ctx, callCtx, err)
	}
	if len(data) > maxAnswerBytes {
		return &Error{Kind: KindInvalidResponse, Status: res.StatusCode, Message: "Doorman's answer is larger than any the contract allows"}
	}
	switch {
	case res.StatusCode >= 300 && res.StatusCode < 400:
		return &Error{
			Kind:   KindConfiguration,
			Status: res.StatusCode,
			Message: fmt.Sprintf("Doorman cannot be reached as configured: BaseURL answered %d with a redirect to %q, which the client "+
				"never follows (the key would go along): set BaseURL to where it points", res.StatusCode, res.Header.Get("Location")),
		}
	case res.StatusCode >= 200 && res.StatusCode < 300, req.accept != nil && req.accept(res.StatusCode):
		if req.decode == nil {
			return nil
		}
		if err := req.decode(res.StatusCode, data); err != nil {
			return &Error{
				Kind:      KindInvalidResponse,
				Status:    res.StatusCode,
				RequestID: res.Header.Get("X-Request-Id"),
				Message:   "Doorman's answer is not the contract's: " + err.Error(),
				cause:     err,
			}
		}
		return nil
	default:
		return errorFromResponse(res, data, time.Now())
	}
}

func cancelled(ctx context.Context) error {
	return fmt.Errorf("doorman: call abandoned: %w", ctx.Err())
}

// classify turns a failure to get an answer into the caller's own cancellation, a timeout, a
// configuration error (one that repeats identically until the configuration changes) or a
// network failure.
func classify(ctx, callCtx context.Context, err error) error {
	if ctx.Err() != nil {
		return cancelled(ctx)
	}
	if callCtx.Err() != nil {
		return &Error{Kind: KindTimeout, Message: "no answer from Doorman within the time budget", cause: err}
	}
	if problem := configurationProblem(err); problem != "" {
		return &Error{Kind: KindConfiguration, Message: "Doorman cannot be reached as configured: " + problem, cause: err}
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return &Error{Kind: KindTimeout, Message: "no answer from Doorman: " + err.Error(), cause: err}
	}
	return &Error{Kind: KindNetwork, Message: "cannot reach Doorman: " + err.Error(), cause: err}
}

func configurationProblem(err error) string {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return fmt.Sprintf("the host of BaseURL does not resolve (DNS: no such name %q)", dnsErr.Name)
	}
	var unknownAuthority x509.UnknownAuthorityError
	if errors.As(err, &unknownAuthority) {
		return "the server's TLS certificate is signed by an authority not trusted here (add its CA to the system's or to HTTPClient's pool)"
	}
	var hostname x509.HostnameError
	if errors.As(err, &hostname) {
		return "the server's TLS certificate is not for the host of BaseURL: " + hostname.Error()
	}
	var invalid x509.CertificateInvalidError
	if errors.As(err, &invalid) {
		return "the server's TLS certificate is not valid: " + invalid.Error()
	}
	var verification *tls.CertificateVerificationError
	if errors.As(err, &verification) {
		return "the server's TLS certificate cannot be verified: " + verification.Error()
	}
	var record tls.RecordHeaderError
	if errors.As(err, &record) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return "BaseURL says https but the server speaks plain http"
	}
	return ""
}

// retryDelay is the answer's Retry-After when it has one (Doorman sends it with a 429, and with a
// 503 while a fresh instance warms up), else an exponential backoff with jitter (half fixed, half
// random), so clients that failed together do not come back together.
func retryDelay(failure *Error, retry int) time.Duration {
	if failure.RetryAfter != nil {
		return *failure.RetryAfter
	}
	ceiling := backoffCap
	if retry < 8 {
		ceiling = min(backoffCap, backoffBase<<retry)
	}
	return ceiling/2 + rand.N(ceiling/2+1)
}
