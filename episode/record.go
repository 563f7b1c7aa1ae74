package episode

import (
	"fmt"
	"strconv"
	"time"
)

// Record is an episode as omoide's JSON carries it, the one shape of an
// episode in and out: what ingest reads, the HTTP API takes and Export
// writes, so that a person's memory moves between stores and programs. Kind,
// State and Sensitivity are their names ("fact", "archived", "private";
// numbers are read too).
type Record struct {
	// ID is the external id (Episode.ExternalID). ExternalID is the same
	// field by its other name, read for callers that send it so: give one,
	// or both equal.
	ID          string      `json:"id"`
	ExternalID  string      `json:"external_id,omitempty"`
	User        string      `json:"user"`
	UserText    string      `json:"user_text"`
	ReplyText   string      `json:"reply_text"`
	OccurredAt  time.Time   `json:"occurred_at"` // zero: the now of Episode
	Source      string      `json:"source"`
	Kind        Kind        `json:"kind"`
	State       State       `json:"state"`
	Sensitivity Sensitivity `json:"sensitivity"`
}

// ExportIDPrefix names an episode stored without an external id in an
// export: "omoide:" and its id in the store, so that importing the export
// twice adds it once.
const ExportIDPrefix = "omoide:"

// RecordOf returns e as a Record.
func RecordOf(e Episode) Record {
	id := e.ExternalID
	if id == "" {
		id = ExportIDPrefix + strconv.FormatInt(e.ID, 10)
	}
	return Record{ID: id, User: e.User, UserText: e.UserText, ReplyText: e.ReplyText, OccurredAt: e.OccurredAt.UTC(),
		Source: e.Source, Kind: e.Kind, State: e.State, Sensitivity: e.Sensitivity}
}

// Episode returns the episode r records, checked as the store will check it
// (Normalize), so that a bad record is named before it fails a batch. now
// stands in for a missing occurred_at; a zero now makes occurred_at
// required.
func (r Record) Episode(now time.Time) (Episode, error) {
	ext := r.ExternalID
	if r.ID != "" {
		if ext != "" && ext != r.ID {
			return Episode{}, fmt.Errorf("id %q and external_id %q differ (they name the same thing: give one)", r.ID, ext)
		}
		ext = r.ID
	}
	e := Episode{User: r.User, ExternalID: ext, UserText: r.UserText, ReplyText: r.ReplyText, OccurredAt: r.OccurredAt,
		Source: r.Source, Kind: r.Kind, State: r.State, Sensitivity: r.Sensitivity}
	if e.OccurredAt.IsZero() {
		e.OccurredAt = now
	}
	if err := e.Normalize(); err != nil { // on a copy: the defaults it fills stay here
		return Episode{}, err
	}
	return e, nil
}
