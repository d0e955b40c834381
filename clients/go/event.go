// The verdict request, one type per event type. The contract's request object is one shape for
// every event type with a conditional the generated struct cannot express: ip is required for
// some event types (VerdictRequest's allOf if/then). Here each event type is its own struct, so
// a signup's IP is a plain required field, checked before anything is sent, and Payment exists
// only on CheckoutAttempt, the one event type whose rules read it (the server ignores it on the
// others). event_test.go fails when these disagree with the event types the served document
// requires ip for (ipRequiredEventTypes, generated).
package doorman

import (
	"encoding/json"
	"reflect"

	"github.com/doorman-oss/doorman/clients/go/internal/generated"
)

// Event is a funnel moment to screen: Signup, TrialStart, TrialConvert, CheckoutAttempt or Login.
// Only this package's types implement it.
type Event interface {
	// EventType is the contract's event_type of the request.
	EventType() EventType
	verdictRequest() (generated.VerdictRequest, error)
}

// Signup screens an account creation.
type Signup struct {
	// Required: the end user's IPv4 or IPv6 address (behind your own proxies, the address they
	// forwarded), never your server's.
	IP string
	// Your own user id. Strongly recommended: the webhook names the user to revoke by it.
	ExternalUserID string
	// As the user typed it; never pre-filter or normalise it. Doorman judges its quality.
	Email string
	// The end user's User-Agent header, verbatim.
	UserAgent string
	// From the browser SDK (POST /v1/device); an expired or foreign token is dropped silently.
	DeviceToken string
	// Other identifiers (phone, wallet, ...): stored and used to link accounts.
	Identity map[string]string
	// Free-form: stored and echoed back, never used in a decision.
	Context map[string]any
}

// TrialStart screens the start of a free trial.
type TrialStart struct {
	// Required: the end user's IPv4 or IPv6 address, never your server's.
	IP             string
	ExternalUserID string
	Email          string
	UserAgent      string
	DeviceToken    string
	Identity       map[string]string
	Context        map[string]any
}

// TrialConvert screens a trial turning into a paid plan.
type TrialConvert struct {
	// Optional: leave it empty when you do not know the end user's address (never send your own).
	IP             string
	ExternalUserID string
	Email          string
	UserAgent      string
	DeviceToken    string
	Identity       map[string]string
	Context        map[string]any
}

// CheckoutAttempt screens a payment attempt.
type CheckoutAttempt struct {
	// Required: the end user's IPv4 or IPv6 address, never your server's.
	IP             string
	ExternalUserID string
	Email          string
	UserAgent      string
	DeviceToken    string
	Identity       map[string]string
	Context        map[string]any
	// The card, as your payment provider describes it (never a card number).
	Payment *Payment
}

// Login screens a sign-in. Doorman may recommend ActionChallenge (ask for a second factor).
type Login struct {
	// Optional: leave it empty when you do not know the end user's address (never send your own).
	IP             string
	ExternalUserID string
	Email          string
	UserAgent      string
	DeviceToken    string
	Identity       map[string]string
	Context        map[string]any
}

// Payment describes the card of a CheckoutAttempt. Every field is optional; an empty one is
// left out (unknown fires no rule).
type Payment struct {
	// A stable per-card id from your payment provider; never a card number.
	CardFingerprint string
	CardFunding     CardFunding
	// ISO 3166-1 alpha-2, any case.
	CardCountry string
	// Minor units (cents), non-negative; nil when unknown. Int64(4900) makes one.
	Amount *int64
	// ISO 4217, any case.
	Currency string
	// Keys the contract does not name: the payment object is open, and Doorman ignores keys it
	// does not know. A key that names one of the fields above is left out.
	Extra map[string]any
}

// Int64 returns a pointer to v, for Payment.Amount.
func Int64(v int64) *int64 { return &v }

// EventType implements Event.
func (Signup) EventType() EventType { return EventSignup }

// EventType implements Event.
func (TrialStart) EventType() EventType { return EventTrialStart }

// EventType implements Event.
func (TrialConvert) EventType() EventType { return EventTrialConvert }

// EventType implements Event.
func (CheckoutAttempt) EventType() EventType { return EventCheckoutAttempt }

// EventType implements Event.
func (Login) EventType() EventType { return EventLogin }

func (e Signup) verdictRequest() (generated.VerdictRequest, error) {
	return commonFields{e.IP, e.ExternalUserID, e.Email, e.UserAgent, e.DeviceToken, e.Identity, e.Context}.wire(EventSignup, true)
}

func (e TrialStart) verdictRequest() (generated.VerdictRequest, error) {
	return commonFields{e.IP, e.ExternalUserID, e.Email, e.UserAgent, e.DeviceToken, e.Identity, e.Context}.wire(EventTrialStart, true)
}

func (e TrialConvert) verdictRequest() (generated.VerdictRequest, error) {
	return commonFields{e.IP, e.ExternalUserID, e.Email, e.UserAgent, e.DeviceToken, e.Identity, e.Context}.wire(EventTrialConvert, false)
}

func (e CheckoutAttempt) verdictRequest() (generated.VerdictRequest, error) {
	wire, err := commonFields{e.IP, e.ExternalUserID, e.Email, e.UserAgent, e.DeviceToken, e.Identity, e.Context}.wire(EventCheckoutAttempt, true)
	if err != nil || e.Payment == nil {
		return wire, err
	}
	payment, err := e.Payment.wire()
	wire.Payment = payment
	return wire, err
}

func (e Login) verdictRequest() (generated.VerdictRequest, error) {
	return commonFields{e.IP, e.ExternalUserID, e.Email, e.UserAgent, e.DeviceToken, e.Identity, e.Context}.wire(EventLogin, false)
}

type commonFields struct {
	ip, externalUserID, email, userAgent, deviceToken string
	identity                                          map[string]string
	context                                           map[string]any
}

func (f commonFields) wire(eventType EventType, ipRequired bool) (generated.VerdictRequest, error) {
	if ipRequired && f.ip == "" {
		return generated.VerdictRequest{}, invalidArgument(
			"a %s requires IP, the end user's address (Doorman answers 400 without it); never send your server's own", eventType)
	}
	wire := generated.VerdictRequest{
		EventType:      generated.VerdictRequestEventType(eventType),
		IP:             optional(f.ip),
		ExternalUserID: optional(f.externalUserID),
		Email:          optional(f.email),
		UserAgent:      optional(f.userAgent),
		DeviceToken:    optional(f.deviceToken),
	}
	if f.identity != nil {
		wire.Identity = &f.identity
	}
	if f.context != nil {
		wire.Context = &f.context
	}
	return wire, nil
}

func (p *Payment) wire() (*generated.Payment, error) {
	wire := &generated.Payment{
		CardFingerprint: optional(p.CardFingerprint),
		CardCountry:     optional(p.CardCountry),
		Currency:        optional(p.Currency),
	}
	if p.CardFunding != "" {
		funding := generated.PaymentCardFunding(p.CardFunding)
		wire.CardFunding = &funding
	}
	if p.Amount != nil {
		amount := int(*p.Amount)
		if int64(amount) != *p.Amount {
			return nil, invalidArgument("Payment.Amount %d does not fit this platform's int", *p.Amount)
		}
		wire.Amount = &amount
	}
	named := jsonFieldNames(generated.Payment{})
	for key, value := range p.Extra {
		if _, taken := named[key]; !taken {
			wire.Set(key, value)
		}
	}
	return wire, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// marshalEvent serialises an event once; Screen sends these bytes on every attempt.
func marshalEvent(event Event) ([]byte, error) {
	if event == nil || isNilPointer(event) {
		return nil, invalidArgument("no event to screen")
	}
	wire, err := event.verdictRequest()
	if err != nil {
		return nil, err
	}
	return json.Marshal(wire)
}

func isNilPointer(value any) bool {
	v := reflect.ValueOf(value)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
