package episode

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/omoide/omoide/internal/strictjson"
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
	OccurredAt  time.Time   `json:"occurred_at,omitzero"` // zero: the now of Episode
	Source      string      `json:"source"`
	Kind        Kind        `json:"kind"`
	State       State       `json:"state"`
	Sensitivity Sensitivity `json:"sensitivity"`
}

// UnmarshalJSON decodes a record strictly (no unknown field), refusing an
// occurred_at given as the zero time (0001-01-01T00:00:00Z), which would
// otherwise read as absent and silently become now.
func (r *Record) UnmarshalJSON(b []byte) error {
	type plain Record
	var v struct {
		plain
		OccurredAt *time.Time `json:"occurred_at"`
	}
	// Strictly, even when a caller's own json.Unmarshal calls it: one
	// reading (no key twice, none differing by case), fields named.
	if err := strictjson.DecodeBytes(b, &v); err != nil {
		return err
	}
	*r = Record(v.plain)
	if v.OccurredAt != nil {
		if v.OccurredAt.IsZero() {
			return fmt.Errorf("occurred_at %s is the zero time: give the time the exchange happened, or leave occurred_at out for now", v.OccurredAt.Format(time.RFC3339))
		}
		r.OccurredAt = *v.OccurredAt
	}
	return nil
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

// MaxRecordLine bounds a JSON Lines line ReadRecords reads: an episode holds
// at most MaxTextBytes of text, which escaping (\uXXXX) can make six times as
// long, with room for the other fields. A longer line is a bad line, read past
// without being held.
const MaxRecordLine = 8*MaxTextBytes + 64<<10

// ReadRecords reads JSON Lines of records, as Export writes them, and calls
// fn with each non-blank line's number and record, or with the line's error
// (longer than MaxRecordLine, not UTF-8, not one record, an unknown field);
// fn's error stops the reading and is returned. Lines are read strictly
// (package strictjson), never repaired.
func ReadRecords(ctx context.Context, r io.Reader, fn func(line int, rec Record, err error) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for n := 1; ; n++ {
		var long int64
		var err error
		line, long, err = readLine(br, line[:0], MaxRecordLine)
		if err == io.EOF && len(line) == 0 && long == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if long > 0 {
			err = fmt.Errorf("line is %d bytes, longer than %d (an episode holds at most %d bytes of text: split it)", long, MaxRecordLine, MaxTextBytes)
			if err := fn(n, Record{}, err); err != nil {
				return err
			}
			continue
		}
		b := bytes.TrimSpace(line)
		if len(b) == 0 {
			continue
		}
		var rec Record
		derr := strictjson.DecodeBytes(b, &rec)
		if err := fn(n, rec, derr); err != nil {
			return err
		}
	}
}

// readLine appends the next line of br (without its newline) to buf; a line
// longer than max is read past, not held, and its length returned as long.
// It returns io.EOF with the last line when the input ends.
func readLine(br *bufio.Reader, buf []byte, max int) (line []byte, long int64, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case long > 0:
			long += int64(len(chunk))
		case len(buf)+len(chunk) > max:
			long = int64(len(buf) + len(chunk))
			buf = buf[:0]
		default:
			buf = append(buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if long > 0 && len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			long--
		}
		return bytes.TrimSuffix(buf, []byte("\n")), long, err
	}
}
