package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
)

// episodeInput is one episode as ingest's JSON Lines and the HTTP API accept
// it: the dataset format (id, user, user_text, reply_text, occurred_at,
// source) plus the optional external_id, kind, state and sensitivity.
type episodeInput struct {
	ID          string           `json:"id"`
	ExternalID  string           `json:"external_id"`
	User        string           `json:"user"`
	UserText    string           `json:"user_text"`
	ReplyText   string           `json:"reply_text"`
	OccurredAt  *time.Time       `json:"occurred_at"`
	Source      string           `json:"source"`
	Kind        kindField        `json:"kind"`
	State       stateField       `json:"state"`
	Sensitivity sensitivityField `json:"sensitivity"`
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
		Kind: episode.Kind(in.Kind), State: episode.State(in.State), Sensitivity: episode.Sensitivity(in.Sensitivity)}
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

// kindField, stateField and sensitivityField accept a number or a name.
type (
	kindField        episode.Kind
	stateField       episode.State
	sensitivityField episode.Sensitivity
)

var (
	kindNames = map[string]int{"episode": int(episode.KindEpisode), "fact": int(episode.KindFact),
		"summary": int(episode.KindSummary), "loop": int(episode.KindLoop)}
	stateNames = map[string]int{"raw": int(episode.StateRaw), "validated": int(episode.StateValidated),
		"consolidated": int(episode.StateConsolidated), "archived": int(episode.StateArchived)}
	sensitivityNames = map[string]int{"normal": int(episode.SensitivityNormal), "private": int(episode.SensitivityPrivate),
		"secret": int(episode.SensitivitySecret)}
)

func (k *kindField) UnmarshalJSON(b []byte) error {
	v, err := parseEnum(b, "kind", kindNames)
	*k = kindField(v)
	return err
}

func (s *stateField) UnmarshalJSON(b []byte) error {
	v, err := parseEnum(b, "state", stateNames)
	*s = stateField(v)
	return err
}

func (s *sensitivityField) UnmarshalJSON(b []byte) error {
	v, err := parseEnum(b, "sensitivity", sensitivityNames)
	*s = sensitivityField(v)
	return err
}

// parseEnum decodes a JSON integer or one of names.
func parseEnum(b []byte, what string, names map[string]int) (int, error) {
	if string(b) == "null" {
		return 0, nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, err
		}
		if v, ok := names[strings.ToLower(strings.TrimSpace(s))]; ok {
			return v, nil
		}
		valid := make([]string, 0, len(names))
		for n, v := range names {
			valid = append(valid, n+"="+strconv.Itoa(v))
		}
		slices.Sort(valid)
		return 0, fmt.Errorf("%s %q: want a number or one of %s", what, s, strings.Join(valid, ", "))
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return 0, fmt.Errorf("%s %s: want an integer or a name", what, b)
	}
	return n, nil
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
