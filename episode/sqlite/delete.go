package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide/episode"
)

// Deleted is what Delete did, as sql.Result is what a statement did.
type Deleted struct {
	// Episodes are the episodes deleted, as they were stored, in the order
	// their ids were given.
	Episodes []episode.Episode
	// Missing are the ids given that the store did not hold (never stored,
	// or deleted already), each once, in the order given.
	Missing []int64
}

// Delete removes the episodes with the given ids from all three tables in one
// transaction and says which it removed and which it did not hold (an id
// given twice is deleted once). Their texts are erased: overwritten
// in the file (secure delete), removed from the full-text index's segments,
// and the write-ahead log checkpointed and truncated (Erase). Each deletion
// is added to the record of erasures, in the same transaction, as a keyed
// hash of the episode (no text), so that a restored copy deletes it again
// (Restore).
func (s *Store) Delete(ctx context.Context, ids ...int64) (Deleted, error) {
	var d Deleted
	if len(ids) == 0 {
		return d, nil
	}
	if s.readOnly {
		return d, fmt.Errorf("episode store: delete: %w", ErrReadOnly)
	}
	tx, release, err := s.beginWrite(ctx)
	if err != nil {
		return d, fmt.Errorf("episode store: delete: begin: %w", err)
	}
	defer release()
	defer tx.Rollback()
	key, err := erasureKey(ctx, tx)
	if err != nil {
		return d, fmt.Errorf("episode store: delete: %w", err)
	}
	at, seen := time.Now(), make(map[int64]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		e, ok, err := deleteRecorded(ctx, tx, key, id, at)
		if err != nil {
			return Deleted{}, fmt.Errorf("episode store: delete %d: %w", id, err)
		}
		if ok {
			d.Episodes = append(d.Episodes, e)
		} else {
			d.Missing = append(d.Missing, id)
		}
	}
	if err := tx.Commit(); err != nil {
		return Deleted{}, fmt.Errorf("episode store: delete: commit: %w", err)
	}
	release()
	s.docs.Add(-int64(len(d.Episodes)))
	if len(d.Episodes) > 0 {
		if _, err := s.checkpoint(ctx); err != nil {
			return d, fmt.Errorf("episode store: delete: %w", err)
		}
	}
	return d, nil
}

// Erased is what a removal took out of the store.
type Erased struct {
	Episodes int // episodes removed
	// BytesFreed is the size of the pages the removal returned to the file's
	// free list, zeroed, which later writes reuse.
	BytesFreed int64
	// Checkpointed reports that the write-ahead log was copied into the file
	// and truncated, so it holds no copy of the removed pages; false when a
	// reader kept the log busy (the next checkpoint empties it).
	Checkpointed bool
}

// DefaultCheckpointWait is how long a removal's checkpoint waits for readers
// (Options.CheckpointWait): it holds the write lock meanwhile, so writers wait
// too.
const DefaultCheckpointWait = 200 * time.Millisecond

// checkpoint copies the write-ahead log into the database and truncates it,
// so that no page image of removed rows stays in the log. It reports false
// when readers kept it from finishing within the store's checkpoint wait.
func (s *Store) checkpoint(ctx context.Context) (bool, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, s.checkpointWait.Milliseconds())); err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA busy_timeout = %d`, s.busy.Milliseconds()))
	var busy, logged, done int
	if err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &done); err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	return busy == 0, nil
}

// freeBytes returns the file's free-list size in bytes.
func (s *Store) freeBytes(ctx context.Context) (int64, error) {
	var free, size int64
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT freelist_count FROM pragma_freelist_count), (SELECT page_size FROM pragma_page_size)`).Scan(&free, &size); err != nil {
		return 0, fmt.Errorf("free pages: %w", err)
	}
	return free * size, nil
}

func deleteOne(ctx context.Context, tx *sql.Tx, id int64) (bool, error) {
	res, err := tx.ExecContext(ctx, `DELETE FROM episodes WHERE id = ?`, id)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM episodes_fts WHERE rowid = ?`, id); err != nil {
		return false, fmt.Errorf("fts: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM episodes_vec WHERE episode_id = ?`, id); err != nil {
		return false, fmt.Errorf("vector: %w", err)
	}
	return true, nil
}

// Forget forgets a person entirely, in one transaction: every episode of
// user from all three tables, the person's row of counts and the vector
// index's chunks of the person's partition. Nothing of the person's texts or
// name remains in the file or its write-ahead log (as Delete; docs/reliability.md):
// Erased says how many episodes went and the bytes freed.
func (s *Store) Forget(ctx context.Context, user string) (Erased, error) {
	if !utf8.ValidString(user) {
		return Erased{}, errors.New("episode store: forget: user is not valid UTF-8 (no person's name is)")
	}
	n, err := s.forget(ctx, user)
	if err != nil {
		return Erased{}, fmt.Errorf("episode store: forget %q: %w", user, err)
	}
	return n, nil
}

func (s *Store) forget(ctx context.Context, user string) (Erased, error) {
	var er Erased
	if s.readOnly {
		return er, ErrReadOnly
	}
	freeBefore, err := s.freeBytes(ctx)
	if err != nil {
		return er, err
	}
	tx, release, err := s.beginWrite(ctx)
	if err != nil {
		return er, fmt.Errorf("begin: %w", err)
	}
	defer release()
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id FROM episodes WHERE user = ?`, user)
	if err != nil {
		return er, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return er, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return er, err
	}
	for _, id := range ids {
		if _, err := deleteOne(ctx, tx, id); err != nil {
			return er, fmt.Errorf("episode %d: %w", id, err)
		}
	}
	// The vector index keeps a partition's chunks, its name in them, when
	// their rows are gone; the person's partition is empty now.
	if err := deleteVecPartition(ctx, tx, user); err != nil {
		return er, fmt.Errorf("vector chunks: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM partitions WHERE user = ?`, user); err != nil {
		return er, fmt.Errorf("partitions: %w", err)
	}
	if err := recordErasure(ctx, tx, user, time.Now()); err != nil {
		return er, fmt.Errorf("record the erasure: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return er, fmt.Errorf("commit: %w", err)
	}
	release()
	s.docs.Add(-int64(len(ids)))
	s.parts.forget(user)
	er.Episodes = len(ids)
	if er.Checkpointed, err = s.checkpoint(ctx); err != nil {
		return er, err
	}
	freeAfter, err := s.freeBytes(ctx)
	if err != nil {
		return er, err
	}
	er.BytesFreed = max(0, freeAfter-freeBefore)
	return er, nil
}

// vecChunkTables are vec0's tables of chunk blobs (the vectors, then the
// four metadata columns) and their blob column.
var vecChunkTables = [][2]string{{"episodes_vec_vector_chunks00", "vectors"}, {"episodes_vec_metadatachunks00", "data"},
	{"episodes_vec_metadatachunks01", "data"}, {"episodes_vec_metadatachunks02", "data"}, {"episodes_vec_metadatachunks03", "data"}}

// deleteVecPartition removes the chunks of user's vec0 partition from the
// vector index's shadow tables: the blobs, then the chunk rows that hold the
// partition key. sqlite-vec v0.1.6 stores a chunk's blobs under a column
// named rowid that holds the chunk id, and opens them by the table's real
// rowid, which a new row takes as the largest plus one: so that the next
// chunk's real rowid stays its id, each blob table keeps an empty
// placeholder row (rowid NULL) at the chunks' last id.
func deleteVecPartition(ctx context.Context, tx *sql.Tx, user string) error {
	for _, t := range vecChunkTables {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t[0]+` WHERE rowid IN (SELECT chunk_id FROM episodes_vec_chunks WHERE partition00 = ?)`, user); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM episodes_vec_chunks WHERE partition00 = ?`, user); err != nil {
		return err
	}
	for _, t := range vecChunkTables {
		for _, q := range []string{`DELETE FROM ` + t[0] + ` WHERE rowid IS NULL`,
			`INSERT INTO ` + t[0] + ` (oid, rowid, ` + t[1] + `) SELECT seq, NULL, x'' FROM sqlite_sequence
				WHERE name = 'episodes_vec_chunks' AND seq > coalesce((SELECT max(oid) FROM ` + t[0] + `), 0)`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
	}
	return nil
}
