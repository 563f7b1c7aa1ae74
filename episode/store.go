package episode

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	_ "github.com/mattn/go-sqlite3" // the SQLite driver; build with -tags sqlite_fts5

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/internal/parallel"
	"github.com/omoide/omoide/tokenize"
	"github.com/omoide/omoide/vecindex"
)

// DefaultBusyTimeout is how long a writer waits for another writer's lock.
const DefaultBusyTimeout = 10 * time.Second

// Options configure Open.
type Options struct {
	// Embedder computes episode vectors; its Identity must match the one the
	// store was created with. nil opens an existing store with the identity
	// it recorded, for work that embeds nothing (reads, deletes, erasure,
	// backups): Add and searches by text then fail with ErrNoEmbedder.
	Embedder embed.Embedder
	// Analyzer produces the FTS5 text. nil means: the analyzer recorded in an
	// existing store, or tokenize.CJK2() for a new one. A non-nil analyzer
	// must match the recorded one.
	Analyzer tokenize.Analyzer
	// BusyTimeout bounds the wait for the write lock; 0 means DefaultBusyTimeout.
	BusyTimeout time.Duration
	// IndexMin is the number of episodes from which Nearest searches a
	// person's vectors in memory; 0 means DefaultIndexMin, a negative value
	// never (always vec0's exact scan).
	IndexMin int
	// IndexCapacity bounds the vectors held in memory over all people; 0
	// means DefaultIndexCapacity.
	IndexCapacity int
	// CheckpointWait bounds the wait of the truncating checkpoint that ends
	// every removal (docs/reliability.md, "Erasure") for readers to let go of
	// the log; 0 means DefaultCheckpointWait, a negative value no wait (one
	// try). Beside Litestream, which always holds a read lock on the log, the
	// wait never succeeds: a negative value saves it (docs/scale-out.md).
	CheckpointWait time.Duration
	// ReadOnly opens an existing store for searches and reads only (a
	// read-only file or directory, a backup copy): nothing is written, not
	// even a migration, and every write returns ErrReadOnly.
	ReadOnly bool
}

// ErrReadOnly is returned by the writes of a store opened with ReadOnly.
var ErrReadOnly = errors.New("the store is open read-only")

// ErrNoEmbedder is returned by Open without Options.Embedder for a store
// whose recorded embedder cannot be read (a new one), and by the embedding
// of a store so opened.
var ErrNoEmbedder = errors.New("no embedder")

// recorded stands for the embedder a store recorded, when Open is given none.
type recorded struct{ id embed.Identity }

func (r recorded) Identity() embed.Identity { return r.id }

func (r recorded) Embed(context.Context, []string) ([][]float32, error) {
	return nil, fmt.Errorf("%w: the store was opened without its embedder %s", ErrNoEmbedder, r.id)
}

// Store holds episodes in one SQLite database file: the episodes table, an
// FTS5 index of their analyzed text and a vec0 index of their vectors,
// partitioned by user. It is safe for concurrent use by multiple goroutines;
// writes are serialized by SQLite (WAL, immediate transactions).
//
// Its methods, by group:
//   - lifecycle: Open, Close, Path, Embedder, Analyzer, Meta, and DB for tests;
//   - writes: Add, Delete, DeleteUser;
//   - reads: Get, GetMany, IDByExternal, Recent, Count;
//   - search (search.go): Nearest, BM25, DocFreq, Holds,
//     Adjacent, Between;
//   - maintenance (maintain.go): Stats, Check, Reindex, and the function
//     Reembed, which works on the path of a store that is not open.
type Store struct {
	db *sql.DB
	// lock is the store's shared lock, held from Open to Close by a
	// writable Store (lock.go); nil read-only.
	lock     *storeLock
	path     string // the database file, as given to Open
	embedder embed.Embedder
	analyzer tokenize.Analyzer
	dim      int
	busy     time.Duration // the connections' busy timeout
	// checkpointWait bounds a removal's checkpoint wait (Options.CheckpointWait).
	checkpointWait time.Duration
	readOnly       bool
	// docs approximates the number of FTS rows for IDF weights: counted at
	// open, then kept up to date by this Store's writes (another process's
	// writes are seen at the next open).
	docs atomic.Int64
	// parts holds the in-memory vector indexes of big partitions (Nearest).
	parts *partitions
	// phrases holds the phrases' row counts of BM25's IDF.
	phrases phraseDocs
	// dfCache holds document frequencies (DocFreq).
	dfMu    sync.RWMutex
	dfCache map[string]cachedDocFreq
	// stmts holds the prepared statements of the read paths, by SQL text.
	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt
	// writer admits this Store's write transactions one at a time, in the
	// order they came (beginWrite, commit).
	writer chan struct{}
	// queue holds the Adds waiting for the write lock, in order (commit).
	groupMu sync.Mutex
	queue   []*pendingWrite
}

// maxCachedStmts bounds the prepared statements a Store keeps; the read
// paths have a few dozen texts (a statement per number of ids or terms).
const maxCachedStmts = 256

// query runs a read statement, prepared once per Store: a retrieval runs the
// same dozen statements every time, and SQLite's parse and plan of each
// (tens of microseconds) would otherwise be paid on every call.
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := s.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return s.db.QueryContext(ctx, q, args...)
	}
	return st.QueryContext(ctx, args...)
}

// queryRow is query for one row.
func (s *Store) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if st, err := s.stmt(ctx, q); err == nil && st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return s.db.QueryRowContext(ctx, q, args...)
}

// stmt returns the cached statement of q, preparing it on first use; nil
// (and no error) when the cache is full.
func (s *Store) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if st, ok := s.stmts[q]; ok {
		return st, nil
	}
	if s.stmts == nil {
		s.stmts = make(map[string]*sql.Stmt)
	}
	if len(s.stmts) >= maxCachedStmts {
		return nil, nil
	}
	st, err := s.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	s.stmts[q] = st
	return st, nil
}

// Open opens or creates the store at path (a file; it is created when
// missing), migrating its schema forward when it is older than this version.
// A writable store is held until Close: Open takes a shared lock on its lock
// file (LockPath), which other writable opens share and which Restore,
// Reembed and Reanalyze, taking it exclusive, refuse to work under; while
// one of those works, Open fails with an error wrapping ErrHeld naming it.
// A read-only open takes no lock.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	return open(ctx, path, opts, !opts.ReadOnly)
}

// open is Open, holding the store's shared lock when hold (Restore works on
// a file of its own under the store's exclusive lock).
func open(ctx context.Context, path string, opts Options, hold bool) (*Store, error) {
	if opts.Embedder == nil {
		m, err := ReadMeta(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("%w given, and the store's own cannot be read: %w", ErrNoEmbedder, err)
		}
		opts.Embedder = recorded{m.Embedder}
	}
	id := opts.Embedder.Identity()
	if id.Dim <= 0 || id.Name == "" {
		return nil, fmt.Errorf("episode store: open: invalid embedder identity %q", id)
	}
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("episode store: open: %q: want the path of a database file", path)
	}
	registerVec.Do(registerSQLiteVec)
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	if err := openable(path, opts.ReadOnly); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == path { // it names the path already
			return nil, fmt.Errorf("episode store: %w", err)
		}
		return nil, fmt.Errorf("episode store: open %s: %w", path, err)
	}
	var lock *storeLock
	if hold {
		var err error
		if lock, err = lockStore(path, false); err != nil {
			return nil, fmt.Errorf("episode store: open %s: %w", path, err)
		}
	}
	db, err := openDB(ctx, path, busy, opts.ReadOnly)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("episode store: open %s: %w", path, err)
	}
	wait := cmp.Or(opts.CheckpointWait, DefaultCheckpointWait)
	if wait < 0 {
		wait = 0
	}
	s := &Store{db: db, lock: lock, path: path, embedder: opts.Embedder, dim: id.Dim, busy: busy, readOnly: opts.ReadOnly,
		checkpointWait: wait, parts: newPartitions(id.Dim, opts.IndexMin, opts.IndexCapacity), writer: make(chan struct{}, 1)}
	if err := hasFTS5(ctx, db); err != nil {
		s.Close()
		return nil, fmt.Errorf("episode store: open %s: %w", path, err)
	}
	if s.analyzer, err = s.migrate(ctx, id, opts.Analyzer); err != nil {
		s.Close()
		return nil, fmt.Errorf("episode store: open %s: %w", path, err)
	}
	var docs int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM episodes`).Scan(&docs); err != nil {
		s.Close()
		return nil, fmt.Errorf("episode store: open %s: %w", path, err)
	}
	s.docs.Store(docs)
	// Load a lazily loaded dictionary now, so the first Add or search does
	// not pay for it.
	if w, ok := s.analyzer.(interface{ Warm() error }); ok {
		if err := w.Warm(); err != nil {
			s.Close()
			return nil, fmt.Errorf("episode store: open %s: analyzer %s: %w", path, s.analyzer.Name(), err)
		}
	}
	return s, nil
}

// dsn is the go-sqlite3 data source of the database file at path: WAL,
// immediate transactions (deferred ones fail with "database is locked" under
// concurrent writers), secure delete (a deleted row's bytes are overwritten
// with zeros, not left on a free page) and a busy timeout; read-only, the
// file opened for reading and every connection refusing writes.
func dsn(path string, busy time.Duration, readOnly bool) string {
	ms := strconv.FormatInt(busy.Milliseconds(), 10)
	if readOnly {
		return "file:" + escapeURIPath(path) + "?mode=ro&_query_only=1&_busy_timeout=" + ms
	}
	return "file:" + escapeURIPath(path) + "?_txlock=immediate&_journal_mode=WAL&_foreign_keys=1&_secure_delete=on&_busy_timeout=" + ms
}

// openDB opens the database. Read-only, a WAL store whose log and shm index
// are gone and cannot be made (a closed store in a directory no one may
// write: a backup) is read as immutable: nothing can be writing it, since a
// writer would need those files.
func openDB(ctx context.Context, path string, busy time.Duration, readOnly bool) (*sql.DB, error) {
	db, err := sql.Open("sqlite3", dsn(path, busy, readOnly))
	if err != nil || !readOnly {
		return db, err
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(new(int)); err == nil {
		return db, nil
	}
	db.Close()
	if _, err := os.Stat(path + "-wal"); err == nil {
		return nil, fmt.Errorf("read-only: its write-ahead log %s-wal is there but its shm index cannot be made here: copy the store with its -wal where you may write, or open it writable once to checkpoint it", path)
	}
	db, err = sql.Open("sqlite3", dsn(path, busy, readOnly)+"&immutable=1")
	if err != nil {
		return nil, err
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(new(int)); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openable reports why the file at path cannot be opened as asked, with the
// operating system's own words (SQLite says "unable to open database file"
// or "no such file" for a directory it may not write, and "attempt to write a
// readonly database" only at the first write): a read-only open needs the
// file; a writable one creates it when missing and needs to write it.
func openable(path string, readOnly bool) error {
	if readOnly {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		return f.Close()
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("%w (to search a store you may not write, open it read-only: -readonly)", err)
		}
		return err
	}
	return f.Close()
}

// hasFTS5 reports an error when the SQLite linked in has no FTS5: a program
// built without the sqlite_fts5 build tag.
func hasFTS5(ctx context.Context, db *sql.DB) error {
	var ok bool
	if err := db.QueryRowContext(ctx, `SELECT sqlite_compileoption_used('ENABLE_FTS5')`).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return errors.New("this program's SQLite has no FTS5: build it with -tags sqlite_fts5 (go build -tags sqlite_fts5, go test -tags sqlite_fts5)")
	}
	return nil
}

// escapeURIPath escapes the characters that end or escape a path in an SQLite
// URI filename.
func escapeURIPath(p string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
}

// Close closes the prepared statements and the database, and lets go of
// the store's lock.
func (s *Store) Close() error {
	s.stmtMu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = nil
	s.stmtMu.Unlock()
	return errors.Join(s.db.Close(), s.lock.Close())
}

// Path returns the database file the store was opened at.
func (s *Store) Path() string { return s.path }

// Embedder returns the store's embedder.
func (s *Store) Embedder() embed.Embedder { return s.embedder }

// Analyzer returns the analyzer of the store's FTS5 index.
func (s *Store) Analyzer() tokenize.Analyzer { return s.analyzer }

// DB returns the underlying database. Only tests use it, to look at rows or
// to damage a store for Check and Reindex; a write through it bypasses the
// Store's counts and in-memory indexes.
func (s *Store) DB() *sql.DB { return s.db }

// Add stores episodes in one transaction: each episode, its FTS row and its
// vector land together or not at all. It returns the id of each episode in
// order; an episode whose (User, ExternalID) is already stored is not added
// again and reports the stored id, and so is one without an ExternalID that
// is the same record as a stored one without one: the same person, content
// (texts, kind, state, sensitivity, source) and time, to the second as
// stored (a retried request). Two such records in one batch are two
// episodes (a greeting said twice), and so is the same content at another
// time; a batch sent again gets the ids it got, the n-th of equal records
// the n-th stored. Every episode is validated before anything is written:
// one bad episode fails the whole batch with an error naming it.
//
// After the transaction, an Add that brings the episodes added since the
// full-text index was last merged to a sixteenth of the store merges it
// (ftsmerge.go): about 2 s at a million episodes, once every 62,500.
func (s *Store) Add(ctx context.Context, eps []Episode) ([]int64, error) {
	r, err := s.Put(ctx, eps, false)
	return r.IDs, err
}

// ErrConflict is returned by Add for an episode whose (User, ExternalID) is
// stored with other content: Update replaces it.
var ErrConflict = errors.New("already stored with other content (Update replaces it)")

// Update stores eps as Add does, except that an episode whose (User,
// ExternalID) is already stored with other content replaces it, in the same
// transaction: its texts are analyzed and embedded again, and the old
// version is erased as Delete erases (docs/reliability.md). A replaced
// episode gets a new id (ids are never reused); Update returns the ids of
// eps, in order. An episode stored with the same content is left as it is.
func (s *Store) Update(ctx context.Context, eps []Episode) ([]int64, error) {
	r, err := s.Put(ctx, eps, true)
	return r.IDs, err
}

// PutResult says what a Put did with its episodes, counted in its
// transaction.
type PutResult struct {
	IDs      []int64 // each episode's id, in order
	Added    int     // episodes stored that the store did not hold
	Replaced int     // stored versions replaced by other content (replace)
	// Present counts the episodes that wrote nothing: stored before with the
	// same content, repeated in the batch under one external id, or without
	// an external id the same record as a stored one (Add).
	Present int
}

// Put stores eps as Add does, or as Update does when replace, and says what
// it did with them.
func (s *Store) Put(ctx context.Context, eps []Episode, replace bool) (PutResult, error) {
	ids, inserted, replaced, err := s.add(ctx, eps, replace)
	if ids == nil {
		return PutResult{}, err
	}
	// with ids and an error, the episodes are stored and a checkpoint failed
	return PutResult{IDs: ids, Added: inserted - replaced, Replaced: replaced, Present: len(eps) - inserted}, err
}

// sameContent reports whether stored and e (normalized) carry the same
// content: texts, time (to the second), kind, state, sensitivity, source.
func sameContent(stored, e Episode) bool {
	return stored.UserText == e.UserText && stored.ReplyText == e.ReplyText && stored.OccurredAt.Unix() == e.OccurredAt.Unix() &&
		stored.Kind == e.Kind && stored.State == e.State && stored.Sensitivity == e.Sensitivity && stored.Source == e.Source
}

// add stores eps and returns their ids, how many rows it inserted and how
// many stored versions those replaced. What can be done without the write
// lock (checks, look-ups, analysis, embedding) is done here; the writes go
// in one transaction with those of the Adds waiting beside it (commit).
func (s *Store) add(ctx context.Context, eps []Episode, replace bool) (ids []int64, inserted, replaced int, err error) {
	op := "add"
	if replace {
		op = "update"
	}
	if len(eps) == 0 {
		return nil, 0, 0, nil
	}
	if s.readOnly {
		return nil, 0, 0, fmt.Errorf("episode store: %s: %w", op, ErrReadOnly)
	}
	batch := make([]Episode, len(eps))
	copy(batch, eps)
	for i := range batch {
		if err := batch[i].Normalize(); err != nil {
			return nil, 0, 0, fmt.Errorf("episode store: add: episode %d (user %q, external id %q): %w", i, clipForError(batch[i].User), clipForError(batch[i].ExternalID), err)
		}
	}
	ids = make([]int64, len(batch))
	// Skip the work for episodes already stored under their external id
	// with the same content; another content is a conflict, or replaced.
	todo := make([]int, 0, len(batch))
	old := map[int]int64{}           // batch index -> the id of the version it replaces
	first := map[[2]string]Episode{} // the batch's first episode under each (user, external id)
	equal := map[repeatKey]int{}     // how many earlier episodes of the batch are each record without an external id
	for i, e := range batch {
		if e.ExternalID == "" {
			k := repeatKey{e.User, e.UserText, e.ReplyText, e.Source, e.OccurredAt.Unix(), e.Kind, e.State, e.Sensitivity}
			n := equal[k]
			equal[k] = n + 1
			id, err := s.repeated(ctx, e, n)
			if err != nil {
				return nil, 0, 0, fmt.Errorf("episode store: %s: episode %d: %w", op, i, err)
			}
			if id != 0 {
				ids[i] = id
				continue
			}
		}
		if e.ExternalID != "" {
			k := [2]string{e.User, e.ExternalID}
			if f, ok := first[k]; ok && !sameContent(f, e) {
				return nil, 0, 0, fmt.Errorf("episode store: %s: episode %d (user %q, external id %q): the batch holds it twice with other content: %w", op, i, clipForError(e.User), clipForError(e.ExternalID), ErrConflict)
			} else if !ok {
				first[k] = e
			}
			stored, err := scanEpisode(s.db.QueryRowContext(ctx, `SELECT `+episodeColumns+` FROM episodes WHERE user = ? AND external_id = ?`, e.User, e.ExternalID))
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, 0, 0, fmt.Errorf("episode store: %s: look up external id %q: %w", op, clipForError(e.ExternalID), err)
			}
			if err == nil {
				if !sameContent(stored, e) {
					if !replace {
						return nil, 0, 0, fmt.Errorf("episode store: add: episode %d (user %q, external id %q): %w", i, clipForError(e.User), clipForError(e.ExternalID), ErrConflict)
					}
					old[i] = stored.ID
					todo = append(todo, i)
					continue
				}
				ids[i] = stored.ID
				continue
			}
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return ids, 0, 0, nil
	}
	texts := make([]string, len(todo))
	for j, i := range todo {
		texts[j] = batch[i].EmbedText()
	}
	// Analyze the FTS text on every core while the embedder works.
	fts := make([][2]string, len(todo))
	analyzed := make(chan struct{})
	go func() {
		defer close(analyzed)
		parallel.For(len(todo), func(j int) {
			e := batch[todo[j]]
			fts[j] = [2]string{s.analyzer.Index(e.UserText), s.analyzer.Index(e.ReplyText)}
		})
	}()
	vecs, err := s.embedder.Embed(ctx, texts)
	<-analyzed
	if err != nil {
		return nil, 0, 0, fmt.Errorf("episode store: add: embed %d episodes: %w", len(texts), err)
	}
	if len(vecs) != len(texts) {
		return nil, 0, 0, fmt.Errorf("episode store: add: embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	blobs, codes := make([][]byte, len(todo)), make([][]byte, len(todo))
	for j, v := range vecs {
		if blobs[j], err = s.vectorBlob(v); err != nil {
			return nil, 0, 0, fmt.Errorf("episode store: add: episode %d: %w", todo[j], err)
		}
		codes[j] = vecindex.Quantize(v)
	}

	w := &pendingWrite{ctx: ctx, op: op, batch: batch, todo: todo, old: old, known: ids,
		fts: fts, blobs: blobs, codes: codes}
	if err := s.commit(ctx, w); err != nil {
		return nil, 0, 0, err
	}
	return w.ids, w.added, w.replaced, w.after
}

// repeatKey is what an episode without an external id must share with a
// stored one to be the same record again: all its content and its time (in
// Unix seconds, as stored).
type repeatKey struct {
	user, userText, replyText, source string
	at                                int64
	kind                              Kind
	state                             State
	sensitivity                       Sensitivity
}

// repeated returns the id of the n-th (from 0, by id) stored episode
// without an external id that e (normalized, without one either) is the
// same record as: the same person, content and time to the second; 0 when
// there is none.
func (s *Store) repeated(ctx context.Context, e Episode, n int) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM episodes WHERE user = ? AND occurred_at = ?
		AND external_id IS NULL AND user_text = ? AND reply_text = ? AND kind = ? AND state = ? AND sensitivity = ? AND source = ?
		ORDER BY id LIMIT 1 OFFSET ?`,
		e.User, e.OccurredAt.Unix(), e.UserText, e.ReplyText, int(e.Kind), int(e.State), int(e.Sensitivity), e.Source, n).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("look up a repeat: %w", err)
	}
	return id, nil
}

// metaLastEpisodeID is the meta key of the largest episode id ever given.
const metaLastEpisodeID = "last_episode_id"

// testHookInTx, when a test sets it, is called inside Add's transaction after
// the rows of the j-th new episode are written (the crash test kills the
// process there).
var testHookInTx func(j int)

const insertVectorSQL = `INSERT INTO episodes_vec
	(episode_id, user, embedding, occurred_at, kind, state, sensitivity) VALUES (?, ?, ?, ?, ?, ?, ?)`

// vectorArgs are the arguments of insertVectorSQL for e: the partition key
// and the metadata columns the KNN filters on.
func vectorArgs(e Episode, blob []byte) []any {
	return []any{e.ID, e.User, blob, e.OccurredAt.Unix(), int(e.Kind), int(e.State), int(e.Sensitivity)}
}

func clipForError(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

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

// vectorBlob validates v against the store's dimension and serializes it.
func (s *Store) vectorBlob(v []float32) ([]byte, error) {
	if len(v) != s.dim {
		return nil, fmt.Errorf("vector has %d dimensions, the store's embedder %s has %d", len(v), s.embedder.Identity(), s.dim)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("vector value %d is %v", i, x)
		}
	}
	return sqlite_vec.SerializeFloat32(v)
}

const episodeColumns = `id, user, COALESCE(external_id, ''), user_text, reply_text, occurred_at, kind, state, sensitivity, source`

// episodeColumnsOf is episodeColumns of the table named by prefix ("e.").
func episodeColumnsOf(prefix string) string {
	return prefix + `id, ` + prefix + `user, COALESCE(` + prefix + `external_id, ''), ` + prefix + `user_text, ` + prefix + `reply_text, ` +
		prefix + `occurred_at, ` + prefix + `kind, ` + prefix + `state, ` + prefix + `sensitivity, ` + prefix + `source`
}

type scanner interface{ Scan(dest ...any) error }

// scanEpisodes reads every row of rows (episodeColumns) and closes them.
func scanEpisodes(rows *sql.Rows) ([]Episode, error) {
	defer rows.Close()
	var out []Episode
	for rows.Next() {
		e, err := scanEpisode(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func scanEpisode(r scanner) (Episode, error) { return scanEpisodeAnd(r) }

// scanEpisodeAnd scans episodeColumns, then more columns into more.
func scanEpisodeAnd(r scanner, more ...any) (Episode, error) {
	var e Episode
	var at int64
	err := r.Scan(append([]any{&e.ID, &e.User, &e.ExternalID, &e.UserText, &e.ReplyText, &at, &e.Kind, &e.State, &e.Sensitivity, &e.Source}, more...)...)
	e.OccurredAt = time.Unix(at, 0).UTC()
	return e, err
}

// Get returns the episode with id, or an error wrapping ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (Episode, error) {
	e, err := scanEpisode(s.db.QueryRowContext(ctx, `SELECT `+episodeColumns+` FROM episodes WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Episode{}, fmt.Errorf("episode store: get %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Episode{}, fmt.Errorf("episode store: get %d: %w", id, err)
	}
	return e, nil
}

// GetMany returns the episodes with the given ids, in the order of ids; ids
// the store does not hold are left out.
func (s *Store) GetMany(ctx context.Context, ids []int64) ([]Episode, error) {
	eps, _, err := s.getMany(ctx, ids, false)
	return eps, err
}

// GetManyTerms is GetMany with each episode's indexed terms: the analyzed
// terms its FTS row holds, user text and reply together (none without an FTS
// row), read in the same statement from FTS5's content table by primary key
// (a tenth less of a retrieval's fetch than through the virtual table and a
// second statement).
func (s *Store) GetManyTerms(ctx context.Context, ids []int64) ([]Episode, [][]string, error) {
	return s.getMany(ctx, ids, true)
}

// getMany is GetMany, and GetManyTerms with terms.
func (s *Store) getMany(ctx context.Context, ids []int64, terms bool) ([]Episode, [][]string, error) {
	if len(ids) == 0 {
		return nil, nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	q := `SELECT ` + episodeColumns + ` FROM episodes WHERE id IN (` + placeholders(len(ids)) + `)`
	if terms {
		q = `SELECT ` + episodeColumnsOf("e.") + `, c.c0 || ' ' || c.c1 FROM episodes e
			LEFT JOIN episodes_fts_content c ON c.id = e.id WHERE e.id IN (` + placeholders(len(ids)) + `)`
	}
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("episode store: get %d episodes: %w", len(ids), err)
	}
	defer rows.Close()
	found := make([]Episode, 0, len(ids))
	var texts []sql.NullString
	for rows.Next() {
		var e Episode
		if terms {
			var text sql.NullString
			e, err = scanEpisodeAnd(rows, &text)
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
	out := make([]Episode, 0, len(found))
	var held [][]string
	if terms {
		held = make([][]string, 0, len(found))
	}
	for _, id := range ids {
		for j, e := range found {
			if e.ID == id {
				out = append(out, e)
				if terms {
					var t []string
					if texts[j].Valid {
						t = strings.Fields(texts[j].String)
					}
					held = append(held, t)
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
func (s *Store) Recent(ctx context.Context, user string, n int) ([]Episode, error) {
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

// Delete removes the episodes with the given ids from all three tables in one
// transaction and returns how many existed. Their texts are erased: overwritten
// in the file (secure delete), removed from the full-text index's segments,
// and the write-ahead log checkpointed and truncated (Erase). Each deletion
// is added to the record of erasures, in the same transaction, as a keyed
// hash of the episode (no text), so that a restored copy deletes it again
// (Restore).
func (s *Store) Delete(ctx context.Context, ids ...int64) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	if s.readOnly {
		return 0, fmt.Errorf("episode store: delete: %w", ErrReadOnly)
	}
	tx, release, err := s.beginWrite(ctx)
	if err != nil {
		return 0, fmt.Errorf("episode store: delete: begin: %w", err)
	}
	defer release()
	defer tx.Rollback()
	key, err := erasureKey(ctx, tx)
	if err != nil {
		return 0, fmt.Errorf("episode store: delete: %w", err)
	}
	n, at := 0, time.Now()
	for _, id := range ids {
		ok, err := deleteRecorded(ctx, tx, key, id, at)
		if err != nil {
			return 0, fmt.Errorf("episode store: delete %d: %w", id, err)
		}
		if ok {
			n++
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("episode store: delete: commit: %w", err)
	}
	release()
	s.docs.Add(-int64(n))
	if n > 0 {
		if _, err := s.checkpoint(ctx); err != nil {
			return n, fmt.Errorf("episode store: delete: %w", err)
		}
	}
	return n, nil
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

// beginWrite begins a write transaction once this Store's earlier writers
// are done, in the order they came, and returns the release to call after
// its commit (calling it again does nothing). SQLite's own busy handler
// makes a waiting writer sleep and retry, up to 100 ms a try, so that under
// concurrency some writes waited seconds while later ones passed (bench
// load: write p99 435 ms with 16 clients, 21 ms with one); writers of other
// processes still meet it.
func (s *Store) beginWrite(ctx context.Context) (*sql.Tx, func(), error) {
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	var once sync.Once
	release := func() { once.Do(func() { <-s.writer }) }
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		release()
		return nil, nil, err
	}
	return tx, release, nil
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

// DeleteUser forgets a person entirely, in one transaction: every episode of
// user from all three tables, the person's row of counts and the vector
// index's chunks of the person's partition. Nothing of the person's texts or
// name remains in the file or its write-ahead log (as Delete; docs/reliability.md):
// Erased says how many episodes went and the bytes freed.
func (s *Store) DeleteUser(ctx context.Context, user string) (Erased, error) {
	if !utf8.ValidString(user) {
		return Erased{}, errors.New("episode store: forget: user is not valid UTF-8 (no person's name is)")
	}
	n, err := s.deleteUser(ctx, user)
	if err != nil {
		return Erased{}, fmt.Errorf("episode store: forget %q: %w", user, err)
	}
	return n, nil
}

func (s *Store) deleteUser(ctx context.Context, user string) (Erased, error) {
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

// Count returns how many episodes user has; user "" counts every episode.
// A person's count is read from the partitions table, which the triggers keep
// (one row lookup however many episodes the person has).
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

// Exists reports whether a store file exists at path.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
