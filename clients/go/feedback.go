// Feedback: real-world outcomes about an event, an account or an email. Doorman deduplicates an
// identical (subject, outcome) repost, so a retried report is safe; 429 and 5xx are retried.
package doorman

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/doorman-oss/doorman/clients/go/internal/generated"
)

// FeedbackService reports real-world outcomes (Client.Feedback).
type FeedbackService struct{ client *Client }

// FeedbackSubject is what a report is about: an event id, your user id, or an email.
type FeedbackSubject struct {
	Kind SubjectKind
	// 1 to 256 characters.
	Value string
}

// FeedbackReport is one outcome about one subject.
type FeedbackReport struct {
	Subject FeedbackSubject
	Outcome FeedbackOutcome
	// Free text for your records, up to 2000 characters; empty for none.
	Note string
}

// FeedbackReceipt is Report's answer, the contract's {ok, duplicate}.
type FeedbackReceipt struct {
	// Doorman's ok: true, on every report it accepted.
	OK bool
	// True when Doorman already held this (subject, outcome) and stored nothing new, so a
	// repeated report is safe and you can tell it from a new one.
	Duplicate bool
}

// Report records an outcome. confirmed_abuse marks the subject's linked cluster,
// false_positive suppresses the misfired pattern, chargeback records a dispute. A subject that
// resolves to nothing in the key's tenant and mode is a *Error with Code CodeNotFound.
func (s *FeedbackService) Report(ctx context.Context, report FeedbackReport, opts ...CallOption) (FeedbackReceipt, error) {
	wire := generated.FeedbackRequest{
		Subject: generated.FeedbackSubject{Kind: generated.FeedbackSubjectKind(report.Subject.Kind), Value: report.Subject.Value},
		Outcome: generated.FeedbackRequestOutcome(report.Outcome),
		Note:    optional(report.Note),
	}
	body, err := json.Marshal(wire)
	if err != nil {
		return FeedbackReceipt{}, err
	}
	var answer struct {
		OK        bool `json:"ok"`
		Duplicate bool `json:"duplicate"`
	}
	o := collect(opts)
	timeout, retries := s.client.budget(o, s.client.timeout)
	err = s.client.send(ctx, request{
		method: http.MethodPost,
		path:   "/v1/feedback",
		body:   body,
		decode: func(_ int, data []byte) error {
			answer.OK, answer.Duplicate = false, false
			if err := json.Unmarshal(data, &answer); err != nil {
				return err
			}
			if !answer.OK {
				return errors.New("no ok: true")
			}
			return nil
		},
	}, timeout, retries)
	if err != nil {
		return FeedbackReceipt{}, err
	}
	return FeedbackReceipt{OK: true, Duplicate: answer.Duplicate}, nil
}
