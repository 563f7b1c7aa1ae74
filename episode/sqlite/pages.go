package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide/episode"
)

// The pages of a browser: a person's episodes newest first (Newest) or by
// text (Search), and the store's people with their newest activity
// (PeopleWith), each up to a sensitivity ceiling, with a person's count
// under it (CountUpTo, read.go). Each page is one read statement, so paging
// does not hold the database between requests.

// Cursor is where a newest-first page of a person's episodes ends: the
// last episode's time and id. The zero Cursor starts at the newest.
type Cursor struct {
	OccurredAt time.Time
	ID         int64
}

// CursorOf returns the Cursor just after e: the next page starts with the
// episode that comes after e, newest first.
func CursorOf(e episode.Episode) Cursor { return Cursor{OccurredAt: e.OccurredAt, ID: e.ID} }

// String returns the cursor's text form for a URL, "<unix seconds>.<id>"
// ("1748779200.42"); the zero Cursor, which a first page is asked for
// with, is "". ParseCursor reads it back.
func (c Cursor) String() string {
	if c == (Cursor{}) {
		return ""
	}
	return strconv.FormatInt(c.OccurredAt.Unix(), 10) + "." + strconv.FormatInt(c.ID, 10)
}

// ParseCursor reads a Cursor's String: the unix seconds (negative before
// 1970) and the id, at least 1, each in decimal without sign or leading
// zeros but the seconds' minus, joined by one dot. Anything else, the empty
// text among them (a first page has no cursor), is an error naming it.
func ParseCursor(s string) (Cursor, error) {
	secs, id, ok := strings.Cut(s, ".")
	at, err1 := strconv.ParseInt(secs, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil || n < 1 ||
		strconv.FormatInt(at, 10) != secs || strconv.FormatInt(n, 10) != id {
		return Cursor{}, fmt.Errorf("episode store: cursor %q is not <unix seconds>.<id>", clipForError(s))
	}
	return Cursor{OccurredAt: time.Unix(at, 0).UTC(), ID: n}, nil
}

// newestSQL reads a page of Newest. The row value of (occurred_at, id) is a
// range of the index episodes_user_time, which holds each entry's rowid (the
// id) after the time: the page is a walk down the index from the cursor, in
// the order asked for, whatever the person's size (TestNewestPlan checks
// the plan).
const newestSQL = `SELECT ` + episodeColumns + ` FROM episodes
	WHERE user = ? AND (occurred_at, id) < (?, ?) AND sensitivity <= ?
	ORDER BY occurred_at DESC, id DESC LIMIT ?`

// Newest returns up to limit of user's episodes no more sensitive than
// maxSensitivity, newest first (by OccurredAt, then id, descending),
// strictly after cursor in that order (the zero Cursor: from the newest).
// The next page is after CursorOf the last episode; a page shorter than
// limit is the last. Episodes are stored to the second, so a cursor's
// OccurredAt counts in whole seconds.
func (s *Store) Newest(ctx context.Context, user string, after Cursor, maxSensitivity episode.Sensitivity, limit int) ([]episode.Episode, error) {
	return s.NewestWhere(ctx, user, after, PageFilter{MaxSensitivity: maxSensitivity}, limit)
}

// PageFilter narrows a page of NewestWhere: the ceiling, and when given,
// the kinds, the states and the time span. Its zero value admits normal
// episodes of every kind, state and time.
type PageFilter struct {
	MaxSensitivity episode.Sensitivity
	Kinds          []episode.Kind  // empty: every kind
	States         []episode.State // empty: every state
	Since, Until   time.Time       // [Since, Until); zero: unbounded
}

// NewestWhere is Newest of the episodes f admits: the same walk down the
// person's time index, Until starting it and Since ending it, the kinds and
// states read on the way.
func (s *Store) NewestWhere(ctx context.Context, user string, after Cursor, f PageFilter, limit int) ([]episode.Episode, error) {
	at, id := int64(math.MaxInt64), int64(math.MaxInt64) // above every episode
	if after != (Cursor{}) {
		at, id = after.OccurredAt.Unix(), after.ID
	}
	if !f.Until.IsZero() && f.Until.Unix() <= at {
		at, id = f.Until.Unix(), 0 // (occurred_at, id) < (until, 0): before Until, ids being at least 1
	}
	return s.page(ctx, "newest", newestSQL, user, at, id, f, " AND occurred_at >= ?", f.Since, limit)
}

// newerSQL reads a page of NewerWhere: the walk up the same index from the
// cursor, oldest first.
const newerSQL = `SELECT ` + episodeColumns + ` FROM episodes
	WHERE user = ? AND (occurred_at, id) > (?, ?) AND sensitivity <= ?
	ORDER BY occurred_at ASC, id ASC LIMIT ?`

// NewerWhere returns up to limit of the episodes f admits that come just
// before cursor newest first (newer than it), themselves newest first: the
// page before a page of NewestWhere, for a browser's "newer" link.
func (s *Store) NewerWhere(ctx context.Context, user string, before Cursor, f PageFilter, limit int) ([]episode.Episode, error) {
	at, id := before.OccurredAt.Unix(), before.ID
	if !f.Since.IsZero() && f.Since.Unix() > at {
		at, id = f.Since.Unix(), 0 // (occurred_at, id) > (since, 0): from Since on
	}
	out, err := s.page(ctx, "newer", newerSQL, user, at, id, f, " AND occurred_at < ?", f.Until, limit)
	slices.Reverse(out)
	return out, err
}

// page reads one page of a walk (newestSQL, newerSQL) from (at, id) with
// f's ceiling, kinds and states, and the walk's far end: bound with end,
// when end is not zero (the cursor holds the near one).
func (s *Store) page(ctx context.Context, what, walk, user string, at, id int64, f PageFilter, bound string, end time.Time, limit int) ([]episode.Episode, error) {
	if limit < 1 {
		return nil, fmt.Errorf("episode store: %s of %q: limit %d, want at least 1", what, clipForError(user), limit)
	}
	if !utf8.ValidString(user) {
		return nil, fmt.Errorf("episode store: %s: user is not valid UTF-8", what)
	}
	args := []any{user, at, id, int(f.MaxSensitivity)}
	var and strings.Builder
	if len(f.Kinds) > 0 {
		and.WriteString(" AND kind IN (" + placeholders(len(f.Kinds)) + ")")
		for _, k := range f.Kinds {
			args = append(args, int(k))
		}
	}
	if len(f.States) > 0 {
		and.WriteString(" AND state IN (" + placeholders(len(f.States)) + ")")
		for _, st := range f.States {
			args = append(args, int(st))
		}
	}
	if !end.IsZero() {
		and.WriteString(bound)
		args = append(args, end.Unix())
	}
	if and.Len() > 0 {
		walk = strings.Replace(walk, "ORDER BY", and.String()+" ORDER BY", 1)
	}
	rows, err := s.query(ctx, walk, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("episode store: %s of %q: %w", what, clipForError(user), err)
	}
	out, err := scanEpisodes(rows)
	if err != nil {
		return nil, fmt.Errorf("episode store: %s of %q: %w", what, clipForError(user), err)
	}
	return out, nil
}

// Search returns up to limit of user's episodes no more sensitive than
// maxSensitivity that hold any of the terms the store's analyzer makes of
// text, best first: BM25's ranking (an episode holding more of the terms, or
// rarer ones, comes first), whose expression quotes every term, so that no
// text is FTS5 syntax. A text of no terms (punctuation, white space) returns
// nil. The text is read as the store's analyzer reads it, without a
// language hint: in a "cjk2" store a word of Han alone (図書館) is read as
// Chinese, its character bigrams, which a Japanese episode's word does not
// hold ("cjk2+ja" reads it as Japanese). The episodes are read after the
// ranking; one changed in between to another person or above the ceiling is
// left out.
func (s *Store) Search(ctx context.Context, user, text string, maxSensitivity episode.Sensitivity, limit int) ([]episode.Episode, error) {
	if limit < 1 {
		return nil, fmt.Errorf("episode store: search of %q: limit %d, want at least 1", clipForError(user), limit)
	}
	if !utf8.ValidString(user) {
		return nil, errors.New("episode store: search: user is not valid UTF-8")
	}
	terms := s.analyzer.Terms(text)
	if len(terms) == 0 {
		return nil, nil
	}
	hits, err := s.BM25(ctx, user, terms, limit, episode.SearchFilter{MaxSensitivity: maxSensitivity})
	if err != nil || len(hits) == 0 {
		return nil, err // BM25's error names the store and itself
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	eps, err := s.GetMany(ctx, ids)
	if err != nil {
		return nil, err
	}
	kept := eps[:0]
	for _, e := range eps {
		if e.User == user && e.Sensitivity <= maxSensitivity {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return nil, nil
	}
	return kept, nil
}

// PeopleQuery selects a page of Store.PeopleWith.
type PeopleQuery struct {
	After    string // the last name of the previous page ("" for the first)
	Contains string // only names holding this substring ("" for all)
	// MaxSensitivity is the ceiling: only a person's episodes at or below it
	// count, in whether they are listed, their count and their newest time.
	// The zero value, normal, shows the least.
	MaxSensitivity episode.Sensitivity
	Limit          int // at most this many; must be at least 1
}

// PersonActivity is a person, their episode count and the time of their
// newest episode, both of the episodes at or below the query's ceiling.
type PersonActivity struct {
	Person
	Newest time.Time
}

// peopleWithSQL reads a page of PeopleWith under the ceiling ?1. A person's
// count is their partition's less their episodes above the ceiling, joined
// from the partial index episodes_sensitive (countUpToSQL) and grouped as
// the partitions come, in name order, so that the page stops at its limit;
// a person left with none is left out (HAVING). Their newest time is a walk
// down episodes_user_time from their last entry, which stops at the first
// at or below the ceiling. instr, not LIKE: a name's % and _ are
// themselves, with nothing to escape.
const peopleWithSQL = `SELECT p.user, p.episodes - count(e.user) AS visible,
		(SELECT n.occurred_at FROM episodes n WHERE n.user = p.user AND n.sensitivity <= ?1 ORDER BY n.occurred_at DESC LIMIT 1)
	FROM partitions p LEFT JOIN episodes e ON e.user = p.user AND e.sensitivity > ?1 AND e.sensitivity > 0
	WHERE p.user > ?2 AND p.episodes > 0 AND instr(p.user, ?3) > 0
	GROUP BY p.user HAVING visible > 0
	ORDER BY p.user LIMIT ?4`

// PeopleWith returns a page of the store's people with at least one
// episode at or below q.MaxSensitivity, as People does (byte order of their
// names, after q.After), of those whose names hold q.Contains (byte for
// byte: case counts), each with the count and the newest time of those
// episodes: nothing above the ceiling shows, not even that a person is
// there. A ceiling below normal lists no one. A page shorter than q.Limit
// is the last; the next starts after its last name.
func (s *Store) PeopleWith(ctx context.Context, q PeopleQuery) ([]PersonActivity, error) {
	if q.Limit < 1 {
		return nil, fmt.Errorf("episode store: people: limit %d, want at least 1", q.Limit)
	}
	if !utf8.ValidString(q.Contains) {
		return nil, fmt.Errorf("episode store: people: the name filter %q is not valid UTF-8", clipForError(q.Contains))
	}
	if q.MaxSensitivity < episode.SensitivityNormal {
		return nil, nil
	}
	rows, err := s.query(ctx, peopleWithSQL, int(q.MaxSensitivity), q.After, q.Contains, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("episode store: people: %w", err)
	}
	defer rows.Close()
	var out []PersonActivity
	for rows.Next() {
		var p PersonActivity
		var newest sql.NullInt64
		if err := rows.Scan(&p.User, &p.Episodes, &newest); err != nil {
			return nil, fmt.Errorf("episode store: people: %w", err)
		}
		if newest.Valid {
			p.Newest = time.Unix(newest.Int64, 0).UTC()
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("episode store: people: %w", err)
	}
	return out, nil
}
