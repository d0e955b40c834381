package doorman

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/doorman-oss/doorman/clients/go/internal/generated"
)

// One hand-written variant per event type, each with every field left empty.
var emptyVariants = map[EventType]Event{
	EventSignup:          Signup{},
	EventTrialStart:      TrialStart{},
	EventTrialConvert:    TrialConvert{},
	EventCheckoutAttempt: CheckoutAttempt{},
	EventLogin:           Login{},
}

func TestEveryEventTypeOfTheContractHasAVariant(t *testing.T) {
	for _, eventType := range eventTypes {
		variant, ok := emptyVariants[eventType]
		if !ok {
			t.Fatalf("the contract has event type %s and the client no variant for it: add one in event.go", eventType)
		}
		if variant.EventType() != eventType {
			t.Fatalf("%T says it is %s", variant, variant.EventType())
		}
	}
	if len(emptyVariants) != len(eventTypes) {
		t.Fatalf("variants %d, event types in the contract %d", len(emptyVariants), len(eventTypes))
	}
}

// The variants' ip requirement is written by hand; the contract's is generated from
// VerdictRequest's if/then. They must agree.
func TestTheVariantsRequireIPExactlyWhereTheContractDoes(t *testing.T) {
	if len(ipRequiredEventTypes) == 0 {
		t.Fatal("the generated list of event types requiring ip is empty")
	}
	for eventType, variant := range emptyVariants {
		_, err := variant.verdictRequest()
		requires := err != nil
		if requires && !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%s: %v", eventType, err)
		}
		if contract := slices.Contains(ipRequiredEventTypes, eventType); requires != contract {
			t.Errorf("%T requires IP: %v; the contract requires ip for %s: %v", variant, requires, eventType, contract)
		}
	}
}

// Payment is offered only where the server reads it.
func TestOnlyCheckoutAttemptHasAPayment(t *testing.T) {
	for eventType, variant := range emptyVariants {
		_, has := reflect.TypeOf(variant).FieldByName("Payment")
		if has != (eventType == EventCheckoutAttempt) {
			t.Errorf("%T has a Payment field: %v", variant, has)
		}
	}
}

// A variant with every field set sends every field the contract's VerdictRequest names (payment
// on the checkout), and nothing empty.
func TestTheVariantsSendEveryFieldOfTheContract(t *testing.T) {
	full := CheckoutAttempt{
		IP: "203.0.113.7", ExternalUserID: "usr_1", Email: "ada@example.com", UserAgent: "Mozilla/5.0",
		DeviceToken: "dev_1", Identity: map[string]string{"phone": "+15550100"}, Context: map[string]any{"plan": "pro"},
		Payment: &Payment{
			CardFingerprint: "fp_1", CardFunding: FundingPrepaid, CardCountry: "US", Amount: Int64(0), Currency: "usd",
			Extra: map[string]any{"wallet": "apple_pay", "amount": 99},
		},
	}
	body, err := marshalEvent(full)
	if err != nil {
		t.Fatal(err)
	}
	var sent map[string]json.RawMessage
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	for name := range jsonFieldNames(generated.VerdictRequest{}) {
		if _, ok := sent[name]; !ok {
			t.Errorf("the contract's VerdictRequest has %s; CheckoutAttempt cannot send it", name)
		}
	}
	var payment map[string]any
	if err := json.Unmarshal(sent["payment"], &payment); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"card_fingerprint": "fp_1", "card_funding": "prepaid", "card_country": "US", "amount": 0.0, "currency": "usd", "wallet": "apple_pay"}
	if !reflect.DeepEqual(payment, want) {
		t.Fatalf("payment: got %v, want %v (a zero amount is sent; Extra does not override a named field)", payment, want)
	}

	body, err = marshalEvent(Login{})
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != `{"event_type":"login"}` {
		t.Fatalf("empty fields are left out: %s", body)
	}
	if _, err := marshalEvent(nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("no event: %v", err)
	}
	var missing *Signup
	if _, err := marshalEvent(missing); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a nil *Signup: %v", err)
	}
}
