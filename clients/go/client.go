package doorman

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// Options configures a Client. SecretKey and BaseURL are required; New checks both.
type Options struct {
	// sk_live_… or sk_test_…: server side only. The key alone decides the tenant and the mode.
	SecretKey string
	// Where your Doorman listens, e.g. https://doorman.internal.example (a path prefix is kept).
	BaseURL string
	// Screen's whole budget, retries and waits included (default 2 s): it runs while your user waits.
	ScreenTimeout time.Duration
	// The budget of Events and Feedback calls (default 10 s). Ping has its own (3 s).
	Timeout time.Duration
	// Retries after the first request, within the budget (default 2; NoRetries for none).
	MaxRetries int
	// Called before each retry, e.g. to log it. It must not block: the call waits for it.
	OnRetry func(RetryInfo)
	// When Doorman cannot be reached as configured (KindConfiguration: the host does not resolve,
	// a redirect, https to a plain-http port, an untrusted certificate), Screen returns the error
	// at once by default, because such a failure repeats on every call until someone fixes it.
	// true: Screen returns a fail-open allow with reason configuration_error instead (also at
	// once). Alert on that reason if you set it.
	FailOpenOnConfigurationError bool
	// The HTTP client to send with (default: one of its own). The client uses a copy whose
	// CheckRedirect refuses every redirect, so the key never follows one; its Timeout, if set,
	// applies to each request on top of the call's budget.
	HTTPClient *http.Client
}

// NoRetries as Options.MaxRetries or WithMaxRetries sends each call once.
const NoRetries = -1

// RetryInfo is what Options.OnRetry is called with before each retry.
type RetryInfo struct {
	// 1 for the first retry.
	Retry int
	// How long the client waits before it: the answer's Retry-After, else a jittered backoff.
	Delay time.Duration
	// Why the previous request failed.
	Err *Error
}

const (
	defaultScreenTimeout = 2 * time.Second
	defaultTimeout       = 10 * time.Second
	defaultMaxRetries    = 2
	// PingTimeout is Ping's default budget: a start-up check should say "not there" in seconds,
	// not in the 10 s the other calls may take. WithTimeout overrides it per call.
	PingTimeout = 3 * time.Second
)

// Mode is a key's mode: "live" or "test".
type Mode string

// The two modes.
const (
	ModeLive Mode = "live"
	ModeTest Mode = "test"
)

// Client calls Doorman. It is safe for concurrent use; make one and share it.
type Client struct {
	baseURL       string
	secretKey     string
	mode          Mode
	http          *http.Client
	screenTimeout time.Duration
	timeout       time.Duration
	maxRetries    int
	onRetry       func(RetryInfo)
	failOpenOnCfg bool

	// Stored events: list, pages, get, attach a user id.
	Events *EventsService
	// Outcome reports.
	Feedback *FeedbackService
}

// New checks the configuration and makes a client. The error says what is wrong: a missing or
// empty key (an unset variable), a publishable key, a key that is only its prefix or holds a
// space or line break, a BaseURL that is not an absolute http(s) URL or holds credentials, a
// query or a fragment, a negative budget.
func New(options Options) (*Client, error) {
	mode, err := checkSecretKey(options.SecretKey)
	if err != nil {
		return nil, err
	}
	baseURL, err := checkBaseURL(options.BaseURL)
	if err != nil {
		return nil, err
	}
	if options.ScreenTimeout < 0 || options.Timeout < 0 {
		return nil, errors.New("doorman: ScreenTimeout and Timeout must not be negative (zero means the default)")
	}
	if options.MaxRetries < NoRetries {
		return nil, errors.New("doorman: MaxRetries must be NoRetries (-1), 0 for the default (2), or a positive count")
	}
	c := &Client{
		baseURL:       baseURL,
		secretKey:     options.SecretKey,
		mode:          mode,
		http:          withoutRedirects(options.HTTPClient),
		screenTimeout: orDefault(options.ScreenTimeout, defaultScreenTimeout),
		timeout:       orDefault(options.Timeout, defaultTimeout),
		maxRetries:    retriesOf(options.MaxRetries),
		onRetry:       options.OnRetry,
		failOpenOnCfg: options.FailOpenOnConfigurationError,
	}
	c.Events = &EventsService{client: c}
	c.Feedback = &FeedbackService{client: c}
	return c, nil
}

// Mode is the mode of the client's key: test keys see only test events, reviews and webhooks.
func (c *Client) Mode() Mode { return c.mode }

var secretKeyShape = regexp.MustCompile(`^sk_(live|test)_(.*)$`)

func checkSecretKey(key string) (Mode, error) {
	if key == "" {
		return "", errors.New("doorman: SecretKey is missing: pass your secret key (sk_live_… or sk_test_…), e.g. os.Getenv(\"DOORMAN_SECRET_KEY\")")
	}
	if strings.HasPrefix(key, "pk_live_") || strings.HasPrefix(key, "pk_test_") {
		return "", errors.New("doorman: SecretKey is a publishable key (pk_…): it only works in the browser, for device tokens; pass a secret key (sk_live_… or sk_test_…)")
	}
	if strings.IndexFunc(key, unicode.IsSpace) >= 0 {
		return "", errors.New("doorman: SecretKey holds a space or a line break: copy the key alone")
	}
	match := secretKeyShape.FindStringSubmatch(key)
	if match == nil {
		return "", errors.New("doorman: SecretKey must start sk_live_ or sk_test_")
	}
	if match[2] == "" {
		return "", fmt.Errorf("doorman: SecretKey is only its prefix (sk_%s_): the rest of the key is missing", match[1])
	}
	return Mode(match[1]), nil
}

func checkBaseURL(raw string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "", errors.New("doorman: BaseURL is missing: pass where your Doorman listens, e.g. https://doorman.internal.example")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return "", fmt.Errorf("doorman: BaseURL is not an absolute URL: %q", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("doorman: BaseURL must be http or https, not %s", u.Scheme)
	}
	if u.User != nil {
		return "", errors.New("doorman: BaseURL must not hold credentials: the secret key is the only credential")
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#") {
		return "", errors.New("doorman: BaseURL must not have a query or a fragment")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// withoutRedirects copies the caller's client (or makes one) so that no redirect is ever
// followed: the Authorization header would go along to wherever it points. A 3xx then reaches
// the client as an answer, which it reports as a configuration error.
func withoutRedirects(base *http.Client) *http.Client {
	var c http.Client
	if base != nil {
		c = *base
	} else {
		c.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

func orDefault(d, fallback time.Duration) time.Duration {
	if d == 0 {
		return fallback
	}
	return d
}

func retriesOf(n int) int {
	switch {
	case n == 0:
		return defaultMaxRetries
	case n < 0:
		return 0
	default:
		return n
	}
}

// CallOption changes one call: WithTimeout, WithMaxRetries, WithIdempotencyKey, WithoutFailOpen.
type CallOption func(*callOptions)

type callOptions struct {
	timeout        time.Duration
	maxRetries     *int
	idempotencyKey *string
	noFailOpen     bool
}

// WithTimeout sets the call's whole budget, retries and waits included, instead of the
// client's default (Screen: ScreenTimeout; Ping: PingTimeout; others: Timeout).
func WithTimeout(d time.Duration) CallOption {
	return func(o *callOptions) { o.timeout = d }
}

// WithMaxRetries sets how many times the call may retry (NoRetries or 0 for none).
func WithMaxRetries(n int) CallOption {
	return func(o *callOptions) {
		n = max(n, 0)
		o.maxRetries = &n
	}
}

// WithIdempotencyKey makes Screen send your key (1 to 255 characters) instead of a fresh UUID,
// e.g. "signup-" + attemptID. Reuse a key only to resend the identical event: a changed event
// under the same key is 409 idempotency_conflict. Other calls ignore it.
func WithIdempotencyKey(key string) CallOption {
	return func(o *callOptions) { o.idempotencyKey = &key }
}

// WithoutFailOpen makes Screen return the *Error instead of a fail-open allow when Doorman is
// slow, down, or answers 429/5xx past the budget. Other calls never fail open.
func WithoutFailOpen() CallOption {
	return func(o *callOptions) { o.noFailOpen = true }
}

func collect(opts []CallOption) callOptions {
	var o callOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// budget is one call's limits: its options, else the client's defaults.
func (c *Client) budget(o callOptions, timeout time.Duration) (time.Duration, int) {
	if o.timeout > 0 {
		timeout = o.timeout
	}
	retries := c.maxRetries
	if o.maxRetries != nil {
		retries = *o.maxRetries
	}
	return timeout, retries
}
