package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// The full-text index grows in segments, and a search seeks every term in
// every segment. So Add merges the index into one segment (FTS5's optimize)
// each time the episodes added since the last merge reach a sixteenth of the
// store: the merge rewrites the index, so its cost per episode stays
// constant, and the episodes added in between sit in a few small segments
// (docs/performance.md, "Figures behind the code").
const (
	ftsMergeShare = 16   // merge when 1/ftsMergeShare of the store is new
	ftsMergeMin   = 1000 // and at least this many episodes are
)

// ftsAutomergeSQL has FTS5 merge the segments of a level as soon as there
// are two (its default waits for four), which keeps fewer small segments
// between two merges of the whole index at no measured cost to ingest.
const ftsAutomergeSQL = `INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('automerge', 2)`

// metaFTSMergedAt is the meta key of the largest episode id when the
// full-text index was last merged.
const metaFTSMergedAt = "fts_merged_at"

// mergeIndex merges the full-text index when it is due (ftsMergeShare);
// lastID is the largest episode id given so far.
func (s *Store) mergeIndex(ctx context.Context, lastID int64) error {
	due := func(q queryer) (bool, error) {
		var v string
		err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = '`+metaFTSMergedAt+`'`).Scan(&v)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return false, err
		}
		at, _ := strconv.ParseInt(v, 10, 64)
		return lastID-at >= max(ftsMergeMin, s.docs.Load()/ftsMergeShare), nil
	}
	if ok, err := due(s.db); err != nil || !ok {
		return err
	}
	tx, release, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("merge the full-text index: %w", err)
	}
	defer release()
	defer tx.Rollback()
	if ok, err := due(tx); err != nil || !ok { // another writer merged meanwhile
		return err
	}
	for _, q := range []string{
		`INSERT INTO episodes_fts (episodes_fts) VALUES ('optimize')`,
		`INSERT INTO meta (key, value) VALUES ('` + metaFTSMergedAt + `', (SELECT coalesce(max(id), 0) FROM episodes))
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("merge the full-text index: %w", err)
		}
	}
	return tx.Commit()
}

// ftsRow is one row of the full-text index: an episode's analyzed texts and
// its person's token (PersonToken).
type ftsRow struct {
	ID        int64  `json:"i"`
	UserText  string `json:"u"`
	ReplyText string `json:"r"`
	Person    string `json:"p"`
}

// insertFTS writes rows to the full-text index in one statement. FTS5 writes
// what it holds in memory out as a new segment at every statement savepoint
// of its transaction (any INSERT with a trigger or ON CONFLICT opens one), so
// a row per statement, between the episode and vector inserts, made a
// segment per episode for the automerge to fold up again.
func insertFTS(ctx context.Context, tx *sql.Tx, rows []ftsRow) error {
	if len(rows) == 0 {
		return nil
	}
	js, err := json.Marshal(rows)
	if err != nil {
		return fmt.Errorf("fts: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO episodes_fts (rowid, user_text, reply_text, person)
		SELECT value ->> 'i', value ->> 'u', value ->> 'r', value ->> 'p' FROM json_each(?)`, string(js)); err != nil {
		return fmt.Errorf("fts: %w", err)
	}
	return nil
}
