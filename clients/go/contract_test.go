package doorman

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/doorman-oss/doorman/clients/go/internal/generated"
)

// The public response types are written by hand (open sets, Extra); the generated ones follow the
// served document. After a regeneration that adds a field, this fails until the public type has
// it too (until then the field would still arrive, in Extra).
func TestThePublicTypesHaveEveryFieldOfTheGeneratedOnes(t *testing.T) {
	storedReview, _ := reflect.TypeOf(generated.StoredEvent{}).FieldByName("Review")
	pairs := []struct {
		public, generated any
	}{
		{VerdictResponse{}, generated.VerdictResponse{}},
		{Reason{}, generated.Reason{}},
		{StoredEvent{}, generated.StoredEvent{}},
		{StoredReview{}, reflect.New(storedReview.Type.Elem()).Elem().Interface()},
		{EventPage{}, generated.EventList{}},
		{ValidationIssue{}, generated.ValidationIssue{}},
		{HealthCheck{}, generated.HealthCheck{}},
		{ReviewResolved{}, generated.ReviewResolvedWebhook{}},
	}
	for _, pair := range pairs {
		public := jsonFieldNames(pair.public)
		for name := range jsonFieldNames(pair.generated) {
			if _, ok := public[name]; !ok {
				t.Errorf("%T lacks %q, which the contract's %T has", pair.public, name, pair.generated)
			}
		}
	}
	// The reason's detail keys the contract names are scalars in Detail's map.
	if len(jsonFieldNames(generated.Reason_Detail{})) == 0 {
		t.Fatal("the generated reason detail names no keys")
	}
}

func TestUnknownFieldsPassThroughAndBackOut(t *testing.T) {
	body := `{"id":"evt_1","verdict":"review","reasons":[{"code":"brand_new","detail":{"sources":"x"},"weight":3}],` +
		`"policy_version":"2026-01-01.1","recommended_action":"verify_phone","risk_band":"high"}`
	var response VerdictResponse
	if err := json.Unmarshal([]byte(body), &response); err != nil {
		t.Fatal(err)
	}
	if string(response.Extra["risk_band"]) != `"high"` || len(response.Extra) != 1 {
		t.Fatalf("extra: %v", response.Extra)
	}
	if response.Reasons[0].Code != "brand_new" || response.Reasons[0].Code.Known() || string(response.Reasons[0].Extra["weight"]) != "3" {
		t.Fatalf("reason: %+v", response.Reasons[0])
	}
	if response.RecommendedAction.Known() || !ActionChallenge.Known() || !ReasonProxyIP.Known() || !CodeConflict.Known() {
		t.Fatal("Known() disagrees with the generated known values")
	}
	again, err := json.Marshal(response)
	if err != nil {
		t.Fatal(err)
	}
	var a, b map[string]any
	_ = json.Unmarshal([]byte(body), &a)
	_ = json.Unmarshal(again, &b)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("written back: %s", again)
	}
}

func TestTheKnownValuesAreGeneratedFromTheDocument(t *testing.T) {
	for name, list := range map[string]int{
		"reason codes": len(knownReasonCodes), "error codes": len(knownErrorCodes),
		"recommended actions": len(knownRecommendedActions), "signal sources": len(knownSignalSources),
	} {
		if list == 0 {
			t.Errorf("no known %s", name)
		}
	}
	for _, eventType := range ipRequiredEventTypes {
		if !slices.Contains(eventTypes, eventType) {
			t.Errorf("ip is required for %s, which is no event type", eventType)
		}
	}
}
