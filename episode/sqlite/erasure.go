package sqlite

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/omoide/omoide/episode"
)

// The record of erasures (schema 8): every forget leaves a row that names the
// person by a keyed hash, never by name, and when; every deletion and every
// replacement of an episode leaves one that names the episode the same way
// (episodeHash). A store brought back from a backup or an older replica
// forgets again everyone forgotten, and deletes again every episode deleted
// or replaced, after it was taken (Restore).
const (
	metaErasureKey  = "erasure_key"
	erasuresDDL     = `CREATE TABLE erasures (key BLOB NOT NULL, erased_at INTEGER NOT NULL, PRIMARY KEY (key, erased_at)) STRICT, WITHOUT ROWID`
	insertErasure   = `INSERT OR IGNORE INTO erasures (key, erased_at) VALUES (?, ?)`
	erasureKeyBytes = 32
)

// Erasure is one erasure in a store's record: a forgotten person's keyed
// hash, or a deleted or replaced episode's, and when.
type Erasure struct {
	Key      []byte // HMAC-SHA256 of the person's name, or of the episode (episodeHash), under the store's erasure key
	ErasedAt time.Time
}

// erasureKey reads the key the record's hashes are made with.
func erasureKey(ctx context.Context, q queryer) ([]byte, error) {
	var h string
	if err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaErasureKey).Scan(&h); err != nil {
		return nil, fmt.Errorf("erasure key: %w", err)
	}
	key, err := hex.DecodeString(h)
	if err != nil || len(key) != erasureKeyBytes {
		return nil, fmt.Errorf("erasure key: not %d hex bytes", erasureKeyBytes)
	}
	return key, nil
}

// personHash is the person's name under key, as the record holds it.
func personHash(key []byte, user string) []byte {
	m := hmac.New(sha256.New, key)
	io.WriteString(m, user)
	return m.Sum(nil)
}

// episodeHash is an episode under key, as the record holds it when the
// episode is deleted or replaced: its id, person, time (to the second, as
// stored) and texts, each field length-prefixed behind a tag no person's
// hash has. The id is in it because a copy of the store holds the episode
// under the same id (ids are never reused) while two episodes may share all
// the rest (two records of one batch), and an episode added again after a
// deletion is another episode that a restore must keep.
func episodeHash(key []byte, id int64, user string, occurredAt int64, userText, replyText string) []byte {
	m := hmac.New(sha256.New, key)
	b := []byte("episode\x00")
	b = binary.AppendVarint(b, id)
	b = binary.AppendVarint(b, occurredAt)
	for _, f := range []string{user, userText, replyText} {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	m.Write(b)
	return m.Sum(nil)
}

// deleteRecorded deletes the episode id as deleteOne does and adds its
// keyed hash (under key) to the record, erased at at, in tx; it returns the
// episode as it was, or false when the store does not hold it.
func deleteRecorded(ctx context.Context, tx *sql.Tx, key []byte, id int64, at time.Time) (episode.Episode, bool, error) {
	e, err := scanEpisode(tx.QueryRowContext(ctx, `SELECT `+episodeColumns+` FROM episodes WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return episode.Episode{}, false, nil
	}
	if err != nil {
		return episode.Episode{}, false, err
	}
	if _, err := deleteOne(ctx, tx, id); err != nil {
		return episode.Episode{}, false, err
	}
	if _, err := tx.ExecContext(ctx, insertErasure, episodeHash(key, id, e.User, e.OccurredAt.Unix(), e.UserText, e.ReplyText), at.UnixNano()); err != nil {
		return episode.Episode{}, false, fmt.Errorf("record the erasure: %w", err)
	}
	return e, true, nil
}

// recordErasure adds the forget of user to the record, in the forget's
// transaction.
func recordErasure(ctx context.Context, tx *sql.Tx, user string, at time.Time) error {
	key, err := erasureKey(ctx, tx)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, insertErasure, personHash(key, user), at.UnixNano())
	return err
}

// Erasures returns the store's record of erasures, oldest first.
func (s *Store) Erasures(ctx context.Context) ([]Erasure, error) {
	out, err := readErasures(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("episode store: erasures: %w", err)
	}
	return out, nil
}

func readErasures(ctx context.Context, db *sql.DB) ([]Erasure, error) {
	rows, err := db.QueryContext(ctx, `SELECT key, erased_at FROM erasures ORDER BY erased_at, key`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Erasure
	for rows.Next() {
		var e Erasure
		var at int64
		if err := rows.Scan(&e.Key, &at); err != nil {
			return nil, err
		}
		e.ErasedAt = time.Unix(0, at).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// readRecord reads the record of erasures of the store at path and its key,
// read-only: nothing of the store changes before it is replaced. A store
// older than schema 8 has none.
func readRecord(ctx context.Context, path string) ([]byte, []Erasure, error) {
	registerVec.Do(registerSQLiteVec)
	db, err := openDB(ctx, path, DefaultBusyTimeout, true, nil)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	var version int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return nil, nil, err
	}
	if version < 8 {
		return nil, nil, nil
	}
	key, err := erasureKey(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	rec, err := readErasures(ctx, db)
	return key, rec, err
}

// readLastID reads the largest episode id the store at path gave (its rows
// and its record in meta), read-only.
func readLastID(ctx context.Context, path string) (int64, error) {
	db, err := openDB(ctx, path, DefaultBusyTimeout, true, nil)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var hasMeta int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name IN ('meta', 'episodes')`).Scan(&hasMeta); err != nil || hasMeta < 2 {
		return 0, err
	}
	var id int64
	err = db.QueryRowContext(ctx, `SELECT max(coalesce((SELECT max(id) FROM episodes), 0),
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '`+metaLastEpisodeID+`'), 0))`).Scan(&id)
	return id, err
}

// Restored says what Restore did.
type Restored struct {
	Episodes int // episodes in the restored store
	People   int // people in it
	// Forgotten are the people of the copy forgotten again: forgotten in the
	// store after the copy was taken.
	Forgotten int
	// Deleted are the episodes of the copy deleted again (beside those of
	// the people forgotten again): deleted or replaced in the store after
	// the copy was taken.
	Deleted int
	// Erasures is the length of the restored store's record: the store's
	// and, for a copy of the same store, the copy's.
	Erasures int
}

// Restore brings the copy at from (an omoide backup, or a replica restored
// by Litestream) back as the store at to, forgets again every person the
// store at to forgot after the copy was taken, and deletes again every
// episode it deleted or replaced since: a person who asked to be forgotten
// stays forgotten, and a deleted episode or the old text of an updated one
// stays gone, whatever copy comes back. The store at to keeps its record of
// erasures; it may be missing (a node lost with its disk), and then nothing
// can be erased again.
//
// Restore replaces the file of to: it takes the store's lock exclusive
// (lock.go) and refuses, with an error wrapping ErrHeld naming the holder,
// while any Store is open on to, read-only or not, in this process or
// another. A from that is not an omoide store is refused, naming it, and a
// folder of to that does not exist is named. The copy is worked on beside to
// and renamed over it only when done, with the mode to had (or a new
// store's), so a failure leaves to as it was.
func Restore(ctx context.Context, from, to string) (Restored, error) {
	r, err := restore(ctx, from, to)
	if err != nil {
		return Restored{}, fmt.Errorf("episode store: restore %s to %s: %w", from, to, err)
	}
	return r, nil
}

func restore(ctx context.Context, from, to string) (Restored, error) {
	var r Restored
	if !Exists(from) {
		return r, fmt.Errorf("%s: no such file", from)
	}
	if err := checkCopy(ctx, from); err != nil {
		return r, err
	}
	// Else the lock file would be blamed: "open x.db.lock: no such file".
	if err := missingFolder(to, true); err != nil {
		return r, err
	}
	lock, err := lockStore(to, true)
	if errors.Is(err, ErrHeld) {
		return r, fmt.Errorf("%w: stop it first (restore replaces the file)", err)
	}
	if err != nil {
		return r, err
	}
	defer lock.Close()
	mode, had := os.FileMode(0o644), false // a new store's, less the umask (openable)
	if fi, err := os.Stat(to); err == nil {
		mode, had = fi.Mode().Perm(), true
	}
	// The record to re-apply: the store's, as it is now; and the largest id
	// it gave, which the copy must not give again.
	var liveKey []byte
	var live []Erasure
	var lastID int64
	if Exists(to) {
		if liveKey, live, err = readRecord(ctx, to); err != nil {
			return r, fmt.Errorf("read the record of erasures: %w", err)
		}
		if lastID, err = readLastID(ctx, to); err != nil {
			return r, fmt.Errorf("read the last episode id: %w", err)
		}
	}
	tmp := to + ".restoring"
	for _, p := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
		os.Remove(p)
	}
	if err := copyFile(from, tmp, mode); err != nil {
		return r, err
	}
	defer os.Remove(tmp)
	if had {
		if err := os.Chmod(tmp, mode); err != nil {
			return r, err
		}
	}
	// Under the store's lock: the work file needs none of its own.
	s, err := open(ctx, tmp, Options{}, false) // migrates an older copy
	if err != nil {
		return r, fmt.Errorf("the copy %s: %w", from, err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	if liveKey != nil {
		if r.Forgotten, r.Deleted, err = s.forgetAgain(ctx, liveKey, live); err != nil {
			return r, err
		}
	}
	// An id given after the copy was taken stays given: a client may still
	// hold it, and erasures name it.
	if _, err := s.db.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('`+metaLastEpisodeID+`', ?)
		ON CONFLICT (key) DO UPDATE SET value = CAST(max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER)) AS TEXT)`,
		strconv.FormatInt(lastID, 10)); err != nil {
		return r, fmt.Errorf("keep the last episode id: %w", err)
	}
	if r.Episodes, err = s.Count(ctx, ""); err != nil {
		return r, err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM partitions WHERE episodes > 0`).Scan(&r.People); err != nil {
		return r, err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM erasures`).Scan(&r.Erasures); err != nil {
		return r, err
	}
	// A fresh file: no free page keeps what the copy's deletions left.
	if _, err := s.db.ExecContext(ctx, `VACUUM`); err != nil {
		return r, fmt.Errorf("vacuum: %w", err)
	}
	closed = true
	if err := s.Close(); err != nil {
		return r, err
	}
	// The store's log belongs to its old file: replayed on the new one it
	// would corrupt it. Closing the store above removed it; a crashed
	// process may have left one.
	for _, p := range []string{to + "-wal", to + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return r, err
		}
	}
	if err := os.Rename(tmp, to); err != nil {
		return r, err
	}
	return r, syncDir(filepath.Dir(to))
}

// checkCopy refuses a copy that is not an omoide store, naming it, before
// anything is done: otherwise the error would come from the work file
// beside the store, and blame the store.
func checkCopy(ctx context.Context, from string) error {
	registerVec.Do(registerSQLiteVec)
	db, err := openDB(ctx, from, DefaultBusyTimeout, true, nil)
	if err != nil {
		return notAStore(from, err)
	}
	defer db.Close()
	var version int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return notAStore(from, err)
	}
	var tables int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('meta', 'episodes')`).Scan(&tables); err != nil {
		return notAStore(from, err)
	}
	switch {
	case version == 0 || tables != 2:
		return fmt.Errorf("%s is not an omoide store: an SQLite database without omoide's tables (schema version %d)", from, version)
	case version > SchemaVersion:
		return fmt.Errorf("%s is a store of schema version %d, newer than this omoide's %d", from, version, SchemaVersion)
	}
	if _, err := readMeta(ctx, db); err != nil {
		return fmt.Errorf("%s is not an omoide store: %w", from, err)
	}
	return nil
}

// notAStore is the error of a copy SQLite cannot read.
func notAStore(from string, err error) error {
	if se := (sqlite3.Error{}); errors.As(err, &se) && se.Code == sqlite3.ErrNotADB {
		return fmt.Errorf("%s is not an omoide store: not an SQLite database", from)
	}
	return fmt.Errorf("%s is not an omoide store: %w", from, err)
}

// forgetAgain forgets the people, and deletes the episodes, of s that the
// record live (under liveKey) erased and s's own record does not hold, then
// makes live the store's record and liveKey its key, so that the next
// restore knows them too. It returns how many people it forgot and how many
// episodes (of the others) it deleted.
func (s *Store) forgetAgain(ctx context.Context, liveKey []byte, live []Erasure) (forgot, deleted int, err error) {
	ownKey, err := erasureKey(ctx, s.db)
	if err != nil {
		return 0, 0, err
	}
	own, err := s.Erasures(ctx)
	if err != nil {
		return 0, 0, err
	}
	type erasure struct {
		key string
		at  int64
	}
	seen := map[erasure]bool{} // the copy's own erasures, when its key is the store's
	if hmac.Equal(ownKey, liveKey) {
		for _, e := range own {
			seen[erasure{string(e.Key), e.ErasedAt.UnixNano()}] = true
		}
	}
	later := map[string]bool{} // hashes erased after the copy
	for _, e := range live {
		if !seen[erasure{string(e.Key), e.ErasedAt.UnixNano()}] {
			later[string(e.Key)] = true
		}
	}
	forget, err := s.erasedPeople(ctx, liveKey, later)
	if err != nil {
		return 0, 0, err
	}
	for _, u := range forget {
		if _, err := s.forget(ctx, u); err != nil {
			return 0, 0, fmt.Errorf("forget a person again: %w", err)
		}
	}
	ids, err := s.erasedEpisodes(ctx, liveKey, later)
	if err != nil {
		return 0, 0, err
	}
	if _, err := s.Delete(ctx, ids...); err != nil {
		return 0, 0, fmt.Errorf("delete episodes again: %w", err)
	}
	// The record becomes the store's (its key too) and, under the same key,
	// the copy's own: the erasures above repeat ones it already holds.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM erasures`); err != nil {
		return 0, 0, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = ?`, hex.EncodeToString(liveKey), metaErasureKey); err != nil {
		return 0, 0, err
	}
	if hmac.Equal(ownKey, liveKey) {
		live = append(live, own...)
	}
	for _, e := range live {
		if _, err := tx.ExecContext(ctx, insertErasure, e.Key, e.ErasedAt.UnixNano()); err != nil {
			return 0, 0, err
		}
	}
	return len(forget), len(ids), tx.Commit()
}

// erasedPeople returns the people of s whose hash under key is in erased.
func (s *Store) erasedPeople(ctx context.Context, key []byte, erased map[string]bool) ([]string, error) {
	if len(erased) == 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT user FROM partitions`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, err
		}
		if erased[string(personHash(key, u))] {
			out = append(out, u)
		}
	}
	return out, rows.Err()
}

// erasedEpisodes returns the ids of the episodes of s whose hash under key
// (episodeHash) is in erased: a pass over every episode, since the record
// holds no id.
func (s *Store) erasedEpisodes(ctx context.Context, key []byte, erased map[string]bool) ([]int64, error) {
	if len(erased) == 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, user, occurred_at, user_text, reply_text FROM episodes`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id, at int64
		var user, userText, replyText string
		if err := rows.Scan(&id, &user, &at, &userText, &replyText); err != nil {
			return nil, err
		}
		if erased[string(episodeHash(key, id, user, at, userText, replyText))] {
			out = append(out, id)
		}
	}
	return out, rows.Err()
}

// copyFile copies the file from to the new file to, synced, created with
// mode (less the umask).
func copyFile(from, to string, mode os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
