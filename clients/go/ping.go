package doorman

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"
)

// PingResult is what Ping found.
type PingResult struct {
	// HealthOK when Postgres, Neo4j and Redis all answer; HealthUnavailable when one does not
	// (Checks names it; verdicts then fail open on the server's side, or answer 500).
	Status HealthStatus
	// One entry per dependency (postgres, neo4j, redis today).
	Checks map[string]HealthCheck
	// The key was accepted, in this mode.
	Mode Mode
	// From the first request to the last answer.
	Latency time.Duration
}

// Ping is a start-up check that screens nothing: it asks GET /health (are Doorman's stores up?
// a 503 is an answer, Status HealthUnavailable) and makes the cheapest authenticated call (GET
// /v1/events?limit=1), side by side. Its budget is PingTimeout (3 s) unless WithTimeout says
// otherwise, so a server that accepts the connection and never answers fails it in seconds
// (Kind KindTimeout). A refused key is a *Error with Status 401 and Code CodeUnauthorized; a
// BaseURL with a wrong path, 404; a server that is not a Doorman, KindInvalidResponse.
func (c *Client) Ping(ctx context.Context, opts ...CallOption) (PingResult, error) {
	timeout, retries := c.budget(collect(opts), PingTimeout)
	started := time.Now()

	var health struct {
		Status HealthStatus           `json:"status"`
		Checks map[string]HealthCheck `json:"checks"`
	}
	var healthErr, keyErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		healthErr = c.send(ctx, request{
			method: http.MethodGet,
			path:   "/health",
			accept: func(status int) bool { return status == http.StatusServiceUnavailable },
			decode: func(_ int, data []byte) error {
				health.Status, health.Checks = "", nil
				if err := json.Unmarshal(data, &health); err != nil {
					return err
				}
				if (health.Status != HealthOK && health.Status != HealthUnavailable) || health.Checks == nil {
					return errors.New("GET /health did not answer Doorman's health report: is BaseURL a Doorman?")
				}
				return nil
			},
		}, timeout, retries)
	}()
	go func() {
		defer wg.Done()
		_, keyErr = c.Events.page(ctx, EventQuery{Limit: 1}, "", []CallOption{WithTimeout(timeout), WithMaxRetries(retries)})
	}()
	wg.Wait()
	if healthErr != nil {
		return PingResult{}, healthErr
	}
	if keyErr != nil {
		return PingResult{}, keyErr
	}
	return PingResult{Status: health.Status, Checks: health.Checks, Mode: c.mode, Latency: time.Since(started)}, nil
}
