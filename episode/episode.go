// Package episode defines the episode — one exchange between a person and the
// companion — and what is said of it without a database: its kinds, states
// and sensitivities and their names, the rule for a person's name, the
// record that ingest, export and the HTTP API exchange, the filter a search
// applies and a search's hit. It imports no SQLite: its store is package
// episode/sqlite, and the packages that only read episodes (transcript,
// ingest, retriever) build without cgo.
package episode

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kind is what an episode records. The values are the reference design's.
type Kind int

// Kinds of episode.
const (
	KindEpisode Kind = 1 // one exchange (the zero Kind is stored as this)
	KindFact    Kind = 2
	KindSummary Kind = 3
	KindLoop    Kind = 7
)

// State is where an episode is in its life; search uses Raw, Validated and
// Consolidated.
type State int

// States of an episode.
const (
	StateRaw          State = 0
	StateValidated    State = 1
	StateConsolidated State = 2
	StateArchived     State = 3
)

// Sensitivity orders how private an episode is; a search admits episodes up to
// a maximum.
type Sensitivity int

// Sensitivity levels.
const (
	SensitivityNormal  Sensitivity = 0
	SensitivityPrivate Sensitivity = 1
	SensitivitySecret  Sensitivity = 2
)

// DefaultSource is the Source of an episode stored without one.
const DefaultSource = "chat"

// Episode is one exchange: the person's message and the companion's reply.
// A notification or reminder is stored with an empty ReplyText.
type Episode struct {
	ID          int64  // assigned by the store
	User        string // the namespace: one person's memory
	ExternalID  string // optional caller id (CheckExternalID's rule); re-adding the same (User, ExternalID) and content is a no-op, other content ErrConflict (Update replaces)
	UserText    string
	ReplyText   string
	OccurredAt  time.Time // stored with second precision
	Kind        Kind
	State       State
	Sensitivity Sensitivity
	Source      string // chat, notification, reminder, proactive, …
}

// ErrNotFound is returned by Get for an id the store does not hold.
var ErrNotFound = errors.New("episode not found")

// ErrTooLong is wrapped by the error of an episode over MaxTextBytes.
var ErrTooLong = errors.New("episode too long")

// MaxUserLen is the longest User namespace accepted, in bytes.
const MaxUserLen = 256

// MaxTextBytes is the most text one episode holds: its UserText and
// ReplyText together, in bytes (16 KiB: about 5,000 Japanese or 16,000
// English characters, a long exchange). Normalize refuses a longer episode
// rather than storing it: every retrieval that meets an episode reads and
// compares its whole text, so one 10 MB episode slowed its person's
// retrievals to a second (docs/reliability.md). Split a longer text into
// episodes.
const MaxTextBytes = 16 << 10

// MaxExternalIDLen is the longest ExternalID accepted, in bytes.
const MaxExternalIDLen = 512

// MaxSourceLen is the longest Source accepted, in bytes: a source names
// where an episode came from (chat, reminder, line:group-42), and every
// retrieval that returns the episode carries it.
const MaxSourceLen = 128

// MaxRecordBytes bounds one episode as a whole: the sum of the bounds of its
// texts and names (MaxTextBytes, MaxUserLen, MaxExternalIDLen,
// MaxSourceLen); the rest of it is numbers and a time.
const MaxRecordBytes = MaxTextBytes + MaxUserLen + MaxExternalIDLen + MaxSourceLen

// The times an episode may have occurred at: a time outside them is a
// mistake (the zero time, a unit mixed up), and JSON cannot write a year
// past 9999.
var (
	MinOccurredAt = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxOccurredAt = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// ErrBadUser is wrapped by the error of a name that is no person's name
// (CheckUser).
var ErrBadUser = errors.New("not a person's name")

// CheckUser returns an error, wrapping ErrBadUser, naming what makes user no
// person's name. The one rule, at every entry (the library, the command
// line, ingest, and the HTTP body, path and header), so that no client or
// proxy can turn one person's name into another's or into another route: a
// name is 1 to MaxUserLen bytes of UTF-8 (replaced, two names would be one),
// with no white space at either end (an HTTP header drops it), no control
// character (a header cannot carry one), not "." or ".." (a client resolves
// them as path segments) and no "/" or "\" (a path separator to clients and
// proxies).
func CheckUser(user string) error {
	if msg := userProblem(user); msg != "" {
		return userError(msg)
	}
	return nil
}

// userError is a name's problem: "user " and what is wrong, which is
// ErrBadUser.
type userError string

func (e userError) Error() string        { return "user " + string(e) }
func (e userError) Is(target error) bool { return target == ErrBadUser }

func userProblem(user string) string {
	switch {
	case user == "":
		return "is empty"
	case strings.TrimSpace(user) == "":
		return fmt.Sprintf("%q is only white space", user)
	case len(user) > MaxUserLen:
		return fmt.Sprintf("is %d bytes, longer than %d", len(user), MaxUserLen)
	case !utf8.ValidString(user):
		return "is not valid UTF-8"
	case user == "." || user == "..":
		return fmt.Sprintf("%q is a path's dot segment, which clients resolve", user)
	case strings.ContainsAny(user, "/\\"):
		return separatorProblem(user)
	}
	return edgeProblem(user, "an HTTP header")
}

// edgeProblem says what of s a carrier would change (dropper: who drops
// white space at either end), or "": white space at either end, a control
// character anywhere. The name and the id rules share it.
func edgeProblem(s, dropper string) string {
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsSpace(r) {
		return fmt.Sprintf("%q begins with white space, which %s drops", s, dropper)
	}
	if r, _ := utf8.DecodeLastRuneInString(s); unicode.IsSpace(r) {
		return fmt.Sprintf("%q ends with white space, which %s drops", s, dropper)
	}
	for i, r := range s {
		if unicode.IsControl(r) {
			return fmt.Sprintf("holds the control character %U at byte %d", r, i)
		}
	}
	return ""
}

// ErrBadExternalID is wrapped by the error of an external id that
// CheckExternalID refuses.
var ErrBadExternalID = errors.New("not an external id a URL carries unchanged")

// CheckExternalID returns an error, wrapping ErrBadExternalID, naming what
// makes id no external id; "" (no id) passes. The one rule, at every entry
// (the library, the command line, ingest, the HTTP body and path): an id
// travels as a path segment (DELETE /v1/users/{user}/episodes/{id}), and no
// client may resolve or split it into another path, such as the person's
// own (a forget). An id is at most MaxExternalIDLen bytes of UTF-8; not a
// dot segment, "." or "..", also with a dot written %2e (URL parsers read
// it as one); holds no "/" or "\" (a path separator to clients and proxies),
// no "?" or "#" (where a client that does not escape ends the path), and no
// control character; and has no white space at either end (URL parsers
// drop it). Episodes stored before the rule keep their ids: "omoide check"
// names them, and they are reached by their store id.
func CheckExternalID(id string) error {
	if msg := externalIDProblem(id); msg != "" {
		return externalIDError(msg)
	}
	return nil
}

// externalIDError is an id's problem: "external id " and what is wrong,
// which is ErrBadExternalID.
type externalIDError string

func (e externalIDError) Error() string        { return "external id " + string(e) }
func (e externalIDError) Is(target error) bool { return target == ErrBadExternalID }

func externalIDProblem(id string) string {
	switch {
	case id == "":
		return ""
	case len(id) > MaxExternalIDLen:
		return fmt.Sprintf("is %d bytes, longer than %d", len(id), MaxExternalIDLen)
	case !utf8.ValidString(id):
		return "is not valid UTF-8"
	case IsDotSegment(id):
		return fmt.Sprintf("%q is a path's dot segment, which URL clients resolve (into the person's own path)", id)
	case strings.ContainsAny(id, "/\\"):
		return separatorProblem(id)
	case strings.ContainsAny(id, "?#"):
		return fmt.Sprintf("%q holds %q, where a client that does not escape it ends the path", id, id[strings.IndexAny(id, "?#")])
	}
	return edgeProblem(id, "a URL parser")
}

// separatorProblem says that s holds a path separator.
func separatorProblem(s string) string {
	return fmt.Sprintf("%q holds a path separator (/ or \\), which a client or proxy may take as one: use another, such as ':'", s)
}

// IsDotSegment reports whether a URL parser reads s, a path segment, as "."
// or "..": each dot may be written %2e or %2E (the WHATWG URL standard's
// single- and double-dot segments).
func IsDotSegment(s string) bool {
	if len(s) > 6 {
		return false
	}
	dots := strings.ReplaceAll(strings.ReplaceAll(s, "%2e", "."), "%2E", ".")
	return dots == "." || dots == ".."
}

// CheckStoredUser returns an error for what can never be a stored person's
// name (empty, or not UTF-8): the test of the reads and erasures (export,
// forget, look-ups) that must reach a person stored before CheckUser's rule,
// which "omoide check" names.
func CheckStoredUser(user string) error {
	switch {
	case user == "":
		return userError("is empty")
	case !utf8.ValidString(user):
		return userError("is not valid UTF-8")
	}
	return nil
}

// Normalize fills e's defaults (Kind Episode, Source "chat") and validates
// it, naming the first problem found. Store.Add calls it on every episode; a
// caller may call it first to reject bad input early.
func (e *Episode) Normalize() error {
	if err := CheckUser(e.User); err != nil {
		return err
	}
	if err := CheckExternalID(e.ExternalID); err != nil {
		return err
	}
	switch {
	case !utf8.ValidString(e.UserText):
		return errors.New("user text is not valid UTF-8")
	case !utf8.ValidString(e.ReplyText):
		return errors.New("reply text is not valid UTF-8")
	case !utf8.ValidString(e.Source):
		return errors.New("source is not valid UTF-8")
	case len(e.Source) > MaxSourceLen:
		return fmt.Errorf("source is %d bytes, longer than %d", len(e.Source), MaxSourceLen)
	case e.UserText == "" && e.ReplyText == "":
		return errors.New("episode has neither user text nor reply text")
	case len(e.UserText)+len(e.ReplyText) > MaxTextBytes:
		return fmt.Errorf("%w: user text and reply text are %d bytes together, more than the %d bytes an episode holds (split it into episodes)",
			ErrTooLong, len(e.UserText)+len(e.ReplyText), MaxTextBytes)
	case e.OccurredAt.IsZero():
		return errors.New("occurred_at is not set")
	case e.OccurredAt.Before(MinOccurredAt) || e.OccurredAt.After(MaxOccurredAt):
		return fmt.Errorf("occurred_at %s is outside %d to %d", e.OccurredAt.UTC().Format(time.RFC3339), MinOccurredAt.Year(), MaxOccurredAt.Year())
	case e.Kind < 0:
		return fmt.Errorf("kind %d is negative", e.Kind)
	case e.State < StateRaw || e.State > StateArchived:
		return fmt.Errorf("state %d is out of range (0-3: raw, validated, consolidated, archived)", e.State)
	case e.Sensitivity < SensitivityNormal || e.Sensitivity > SensitivitySecret:
		return fmt.Errorf("sensitivity %d is out of range (0-2: normal, private, secret)", e.Sensitivity)
	}
	if e.Kind == 0 {
		e.Kind = KindEpisode
	}
	if e.Source == "" {
		e.Source = DefaultSource
	}
	return nil
}

// EmbedText is the text an episode's vector is computed from: the user text
// and the reply joined by a newline.
func (e Episode) EmbedText() string {
	if e.ReplyText == "" {
		return e.UserText
	}
	return e.UserText + "\n" + e.ReplyText
}

// Terms are an episode's indexed terms as its store's analyzer wrote them,
// in order: its user text's and its reply's.
type Terms struct {
	User, Reply []string
}

// Len is the number of terms, the user text's and the reply's.
func (t Terms) Len() int { return len(t.User) + len(t.Reply) }

// At returns the i-th term, counting the user text's first.
func (t Terms) At(i int) string {
	if i < len(t.User) {
		return t.User[i]
	}
	return t.Reply[i-len(t.User)]
}

// All returns the user text's terms, then the reply's, in one new slice.
func (t Terms) All() []string {
	return append(append(make([]string, 0, t.Len()), t.User...), t.Reply...)
}
