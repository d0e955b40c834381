// Stored events: Pages and List (which follow next_cursor until it no longer appears), Get, and
// AttachUser (write-once; the same value again is fine, another is 409 conflict). These calls are
// idempotent, so 429 and 5xx are retried like the verdict call; they never fail open.
package doorman

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/doorman-oss/doorman/clients/go/internal/generated"
)

// EventsService reads stored events and binds your user id to them (Client.Events).
type EventsService struct{ client *Client }

// EventQuery filters Events.List and Events.Pages. Zero values filter nothing.
type EventQuery struct {
	// Events per page, 1 to 100 (0: Doorman's default, 50).
	Limit     int
	EventType EventType
	Verdict   Verdict
}

// Pages yields every matching event a page at a time, newest first, following next_cursor until
// it no longer appears. Each page is one call with its own budget (Timeout). A failure is
// yielded as the last element; leaving the loop early stops the paging.
//
//	for page, err := range client.Events.Pages(ctx, doorman.EventQuery{Limit: 100}) { ... }
func (s *EventsService) Pages(ctx context.Context, query EventQuery, opts ...CallOption) iter.Seq2[EventPage, error] {
	return func(yield func(EventPage, error) bool) {
		cursor := ""
		for {
			page, err := s.page(ctx, query, cursor, opts)
			if err != nil {
				yield(EventPage{}, err)
				return
			}
			if !yield(page, nil) || page.NextCursor == "" {
				return
			}
			cursor = page.NextCursor
		}
	}
}

// List yields every matching event, newest first, fetched a page (Limit) at a time. A failure is
// yielded as the last element; leaving the loop early stops the paging.
//
//	for event, err := range client.Events.List(ctx, doorman.EventQuery{Verdict: doorman.VerdictReview}) {
//		if err != nil { return err }
//		...
//	}
func (s *EventsService) List(ctx context.Context, query EventQuery, opts ...CallOption) iter.Seq2[StoredEvent, error] {
	return func(yield func(StoredEvent, error) bool) {
		for page, err := range s.Pages(ctx, query, opts...) {
			if err != nil {
				yield(StoredEvent{}, err)
				return
			}
			for _, event := range page.Events {
				if !yield(event, nil) {
					return
				}
			}
		}
	}
}

func (s *EventsService) page(ctx context.Context, query EventQuery, cursor string, opts []CallOption) (EventPage, error) {
	values := url.Values{}
	if query.Limit != 0 {
		values.Set("limit", strconv.Itoa(query.Limit))
	}
	if query.EventType != "" {
		values.Set("event_type", string(query.EventType))
	}
	if query.Verdict != "" {
		values.Set("verdict", string(query.Verdict))
	}
	if cursor != "" {
		values.Set("cursor", cursor)
	}
	path := "/v1/events"
	if len(values) > 0 {
		path += "?" + values.Encode()
	}
	var page EventPage
	o := collect(opts)
	timeout, retries := s.client.budget(o, s.client.timeout)
	err := s.client.send(ctx, request{
		method: http.MethodGet,
		path:   path,
		decode: func(_ int, data []byte) error {
			page = EventPage{}
			if err := json.Unmarshal(data, &page); err != nil {
				return err
			}
			if page.Events == nil {
				return errors.New("no list of events")
			}
			return nil
		},
	}, timeout, retries)
	return page, err
}

// Get reads one stored event. An unknown id, or another tenant's or mode's, is a *Error with
// Status 404 and Code CodeNotFound.
func (s *EventsService) Get(ctx context.Context, id string, opts ...CallOption) (StoredEvent, error) {
	if id == "" {
		return StoredEvent{}, invalidArgument("no event id")
	}
	var event StoredEvent
	o := collect(opts)
	timeout, retries := s.client.budget(o, s.client.timeout)
	err := s.client.send(ctx, request{
		method: http.MethodGet,
		path:   "/v1/events/" + url.PathEscape(id),
		decode: func(_ int, data []byte) error {
			event = StoredEvent{}
			if err := json.Unmarshal(data, &event); err != nil {
				return err
			}
			if event.ID == "" {
				return errors.New("no event id")
			}
			return nil
		},
	}, timeout, retries)
	return event, err
}

// AttachUser binds your user id to a stored event, once: the same id again succeeds, another is
// a *Error with Status 409 and Code CodeConflict. Later webhooks name the user by it.
func (s *EventsService) AttachUser(ctx context.Context, id, externalUserID string, opts ...CallOption) error {
	if id == "" {
		return invalidArgument("no event id")
	}
	if externalUserID == "" {
		return invalidArgument("no external user id to attach")
	}
	body, err := json.Marshal(generated.AttachUserRequest{ExternalUserID: externalUserID})
	if err != nil {
		return err
	}
	o := collect(opts)
	timeout, retries := s.client.budget(o, s.client.timeout)
	return s.client.send(ctx, request{
		method: http.MethodPatch,
		path:   "/v1/events/" + url.PathEscape(id),
		body:   body,
	}, timeout, retries)
}
