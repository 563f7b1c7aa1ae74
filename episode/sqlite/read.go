package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide/episode"
)

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// IDByExternal returns the id of user's episode stored under external id ext,
// or 0 when there is none.
func (s *Store) IDByExternal(ctx context.Context, user, ext string) (int64, error) {
	if !utf8.ValidString(user) || !utf8.ValidString(ext) {
		return 0, errors.New("episode store: user or external id is not valid UTF-8")
	}
	id, err := s.idByExternal(ctx, s.db, user, ext)
	if err != nil {
		return 0, fmt.Errorf("episode store: %w", err)
	}
	return id, nil
}

func (s *Store) idByExternal(ctx context.Context, q queryer, user, ext string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM episodes WHERE user = ? AND external_id = ?`, user, ext).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("look up external id %q: %w", clipForError(ext), err)
	}
	return id, nil
}

const episodeColumns = `id, user, COALESCE(external_id, ''), user_text, reply_text, occurred_at, kind, state, sensitivity, source`

// episodeColumnsOf is episodeColumns of the table named by prefix ("e.").
func episodeColumnsOf(prefix string) string {
	return prefix + `id, ` + prefix + `user, COALESCE(` + prefix + `external_id, ''), ` + prefix + `user_text, ` + prefix + `reply_text, ` +
		prefix + `occurred_at, ` + prefix + `kind, ` + prefix + `state, ` + prefix + `sensitivity, ` + prefix + `source`
}

type scanner interface{ Scan(dest ...any) error }

// scanEpisodes reads every row of rows (episodeColumns) and closes them.
func scanEpisodes(rows *sql.Rows) ([]episode.Episode, error) {
	defer rows.Close()
	var out []episode.Episode
	for rows.Next() {
		e, err := scanEpisode(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func scanEpisode(r scanner) (episode.Episode, error) { return scanEpisodeAnd(r) }

// scanEpisodeAnd scans episodeColumns, then more columns into more.
func scanEpisodeAnd(r scanner, more ...any) (episode.Episode, error) {
	var e episode.Episode
	var at int64
	err := r.Scan(append([]any{&e.ID, &e.User, &e.ExternalID, &e.UserText, &e.ReplyText, &at, &e.Kind, &e.State, &e.Sensitivity, &e.Source}, more...)...)
	e.OccurredAt = time.Unix(at, 0).UTC()
	return e, err
}

// Get returns the episode with id, or an error wrapping ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (episode.Episode, error) {
	e, err := scanEpisode(s.db.QueryRowContext(ctx, `SELECT `+episodeColumns+` FROM episodes WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return episode.Episode{}, fmt.Errorf("episode store: get %d: %w", id, episode.ErrNotFound)
	}
	if err != nil {
		return episode.Episode{}, fmt.Errorf("episode store: get %d: %w", id, err)
	}
	return e, nil
}

// GetMany returns the episodes with the given ids, in the order of ids; ids
// the store does not hold are left out.
func (s *Store) GetMany(ctx context.Context, ids []int64) ([]episode.Episode, error) {
	eps, _, err := s.getMany(ctx, ids, false)
	return eps, err
}

// GetManyTerms is GetMany with each episode's indexed terms: the analyzed
// terms its FTS row holds, of its user text and of its reply (none without
// an FTS row), read in the same statement from FTS5's content table by
// primary key (a tenth less of a retrieval's fetch than through the virtual
// table and a second statement).
func (s *Store) GetManyTerms(ctx context.Context, ids []int64) ([]episode.Episode, []episode.Terms, error) {
	return s.getMany(ctx, ids, true)
}

// getMany is GetMany, and GetManyTerms with terms.
func (s *Store) getMany(ctx context.Context, ids []int64, terms bool) ([]episode.Episode, []episode.Terms, error) {
	if len(ids) == 0 {
		return nil, nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	q := `SELECT ` + episodeColumns + ` FROM episodes WHERE id IN (` + placeholders(len(ids)) + `)`
	if terms {
		q = `SELECT ` + episodeColumnsOf("e.") + `, c.c0, c.c1 FROM episodes e
			LEFT JOIN episodes_fts_content c ON c.id = e.id WHERE e.id IN (` + placeholders(len(ids)) + `)`
	}
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("episode store: get %d episodes: %w", len(ids), err)
	}
	defer rows.Close()
	found := make([]episode.Episode, 0, len(ids))
	var texts [][2]sql.NullString
	for rows.Next() {
		var e episode.Episode
		if terms {
			var text [2]sql.NullString
			e, err = scanEpisodeAnd(rows, &text[0], &text[1])
			texts = append(texts, text)
		} else {
			e, err = scanEpisode(rows)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("episode store: get %d episodes: %w", len(ids), err)
		}
		found = append(found, e)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("episode store: get %d episodes: %w", len(ids), err)
	}
	out := make([]episode.Episode, 0, len(found))
	var held []episode.Terms
	if terms {
		held = make([]episode.Terms, 0, len(found))
	}
	for _, id := range ids {
		for j, e := range found {
			if e.ID == id {
				out = append(out, e)
				if terms {
					held = append(held, episode.Terms{User: strings.Fields(texts[j][0].String), Reply: strings.Fields(texts[j][1].String)})
				}
				break
			}
		}
	}
	return out, held, nil
}

func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}

// Recent returns the user's n most recent episodes, oldest first.
func (s *Store) Recent(ctx context.Context, user string, n int) ([]episode.Episode, error) {
	if n <= 0 {
		return nil, nil
	}
	rows, err := s.query(ctx, `SELECT `+episodeColumns+` FROM episodes WHERE user = ?
		ORDER BY occurred_at DESC, id DESC LIMIT ?`, user, n)
	if err != nil {
		return nil, fmt.Errorf("episode store: recent %q: %w", user, err)
	}
	out, err := scanEpisodes(rows)
	if err != nil {
		return nil, fmt.Errorf("episode store: recent %q: %w", user, err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// Count returns how many episodes user has, of every sensitivity; user ""
// counts every episode. A person's count is read from the partitions table,
// which the triggers keep (one row lookup however many episodes the person
// has). A page under a sensitivity ceiling shows CountUpTo instead.
func (s *Store) Count(ctx context.Context, user string) (int, error) {
	var n int
	var err error
	if user == "" {
		err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM episodes`).Scan(&n)
	} else {
		err = s.queryRow(ctx, `SELECT coalesce((SELECT episodes FROM partitions WHERE user = ?), 0)`, user).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("episode store: count: %w", err)
	}
	return n, nil
}

// countUpToSQL is CountUpTo of a person: their partition's count less their
// episodes above the ceiling, a range of the partial index
// episodes_sensitive, which SQLite uses under a ceiling above normal only
// because the WHERE holds the index's term sensitivity > 0 as written
// (TestSensitivePlan checks it). One statement, so both counts are of the
// same moment.
const countUpToSQL = `SELECT coalesce((SELECT episodes FROM partitions WHERE user = ?1), 0)
	- (SELECT count(*) FROM episodes WHERE user = ?1 AND sensitivity > ?2 AND sensitivity > 0)`

// countAllUpToSQL is countUpToSQL over every person: the sum of the
// partitions' counts, a row a person, less every sensitive episode above the
// ceiling.
const countAllUpToSQL = `SELECT (SELECT coalesce(sum(episodes), 0) FROM partitions)
	- (SELECT count(*) FROM episodes WHERE sensitivity > ?1 AND sensitivity > 0)`

// CountUpTo returns how many of user's episodes are no more sensitive than
// maxSensitivity, as a page under that ceiling may show them (a ceiling
// below normal counts none); user "" counts every person's. It is Count less
// the episodes above the ceiling, which an index of the sensitive episodes
// alone counts: a few, however many normal ones the person has.
func (s *Store) CountUpTo(ctx context.Context, user string, maxSensitivity episode.Sensitivity) (int, error) {
	if !utf8.ValidString(user) {
		return 0, errors.New("episode store: count: user is not valid UTF-8")
	}
	if maxSensitivity < episode.SensitivityNormal {
		return 0, nil
	}
	var n int
	var err error
	if user == "" {
		err = s.queryRow(ctx, countAllUpToSQL, int(maxSensitivity)).Scan(&n)
	} else {
		err = s.queryRow(ctx, countUpToSQL, user, int(maxSensitivity)).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("episode store: count: %w", err)
	}
	return n, nil
}
