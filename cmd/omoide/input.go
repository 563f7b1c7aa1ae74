package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
)

// episodeInput is one episode as ingest's JSON Lines and the HTTP API accept
// it: the dataset format (id, user, user_text, reply_text, occurred_at,
// source) plus the optional external_id, kind, state and sensitivity.
type episodeInput struct {
	ID          string              `json:"id"`
	ExternalID  string              `json:"external_id"`
	User        string              `json:"user"`
	UserText    string              `json:"user_text"`
	ReplyText   string              `json:"reply_text"`
	OccurredAt  *time.Time          `json:"occurred_at"`
	Source      string              `json:"source"`
	Kind        episode.Kind        `json:"kind"`
	State       episode.State       `json:"state"`
	Sensitivity episode.Sensitivity `json:"sensitivity"`
}

// episode validates in and converts it. now stands in for a missing
// occurred_at; the zero now makes occurred_at required. The checks are the
// store's, so that a bad episode is named here instead of failing a batch.
func (in episodeInput) episode(now time.Time) (episode.Episode, error) {
	ext := in.ExternalID
	if in.ID != "" {
		if ext != "" && ext != in.ID {
			return episode.Episode{}, fmt.Errorf("id %q and external_id %q differ (they name the same thing: give one)", in.ID, ext)
		}
		ext = in.ID
	}
	e := episode.Episode{User: in.User, ExternalID: ext, UserText: in.UserText, ReplyText: in.ReplyText, Source: in.Source,
		Kind: in.Kind, State: in.State, Sensitivity: in.Sensitivity}
	switch {
	case in.OccurredAt != nil:
		e.OccurredAt = *in.OccurredAt
	case !now.IsZero():
		e.OccurredAt = now
	}
	if err := checkEpisode(e); err != nil {
		return episode.Episode{}, err
	}
	return e, nil
}

// checkEpisode validates e as the store will, without changing it.
func checkEpisode(e episode.Episode) error {
	return e.Normalize() // e is a copy: the defaults it fills stay here
}

// messageInput is one recent turn: {"role": "user"|"assistant", "content": "..."}.
type messageInput struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// messages validates ms and converts them; a nil ms stays nil (the
// retriever then uses the person's last stored episodes as the context).
func messages(ms []messageInput) ([]retriever.Message, error) {
	if ms == nil {
		return nil, nil
	}
	out := make([]retriever.Message, len(ms))
	for i, m := range ms {
		switch m.Role {
		case "user", "assistant", "system": // the retriever ignores system messages
		default:
			return nil, fmt.Errorf("recent[%d]: role %q: want \"user\" or \"assistant\"", i, m.Role)
		}
		out[i] = retriever.Message{Role: m.Role, Content: m.Content}
	}
	return out, nil
}

// decodeStrict decodes exactly one JSON value from data into v, rejecting
// unknown fields and trailing data.
func decodeStrict(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty input: want a JSON value")
		}
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// decodeStrictBytes is decodeStrict over a byte slice.
func decodeStrictBytes(b []byte, v any) error { return decodeStrict(bytes.NewReader(b), v) }
