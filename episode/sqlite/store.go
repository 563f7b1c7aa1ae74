package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/mattn/go-sqlite3" // the SQLite driver; build with -tags sqlite_fts5

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/tokenize"
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
	// read-only file or directory, a backup copy): nothing is written to it,
	// not even a migration, and every write returns ErrReadOnly. It holds
	// the store as a writable open does (Open), so that no restore replaces
	// the file it reads; where the lock file neither exists nor can be made,
	// its reads fail with ErrReplaced once the file was replaced instead.
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

// Lexical reports whether the recorded embedder is the lexical hash one.
func (r recorded) Lexical() bool { return embed.IsHash(r.id) }

func (r recorded) Embed(context.Context, []string) ([][]float32, error) {
	return nil, fmt.Errorf("%w: the store was opened without its embedder %s", ErrNoEmbedder, r.id)
}

// Store holds episodes in one SQLite database file: the episodes table, an
// FTS5 index of their analyzed text and a vec0 index of their vectors,
// partitioned by user. It is safe for concurrent use by multiple goroutines;
// writes are serialized by SQLite (WAL, immediate transactions).
//
// Its methods, by group:
//   - lifecycle (store.go): Open, Close, Path, Embedder, Analyzer, Meta,
//     and DB for tests;
//   - writes (write.go): Add, Update, Put;
//   - removals (delete.go, erasure.go): Delete, Forget, and the record
//     of erasures that Restore re-applies;
//   - reads (read.go): Get, GetMany, GetManyTerms, IDByExternal, Recent,
//     Count, and CountUpTo (a count under a sensitivity ceiling, for pages);
//   - search (search.go): Nearest, BM25, DocFreq, Holds,
//     Adjacent, Between;
//   - pages of a browser (pages.go): Newest, Search, PeopleWith, each up
//     to a sensitivity ceiling;
//   - maintenance (maintain.go): Stats, Check, Reindex, and the function
//     Reembed, which works on the path of a store that is not open.
type Store struct {
	db *sql.DB
	// lock is the store's shared lock, held from Open to Close (lock.go);
	// nil for Restore's work file, and for a read-only Store where there
	// is no lock file to take (its connections are guarded: guard.go).
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
// missing, in a folder that must exist), migrating its schema forward when
// it is older than this version. The store is held until Close: Open takes
// a shared lock on its lock file (LockPath), which other opens share and
// which Restore, Reembed and Reanalyze, taking it exclusive, refuse to work
// under; while one of those works, Open fails with an error wrapping
// ErrHeld naming it. A read-only open holds it the same way, opening the
// lock file for reading where it may not make one; where there is none to
// open, it holds nothing, and every read of the Store checks instead that
// the file at path is still the one it opened, failing with an error
// wrapping ErrReplaced once it is not.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	return open(ctx, path, opts, true)
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
	var guard *fileGuard
	if hold {
		var err error
		if opts.ReadOnly {
			lock, err = lockReadOnly(path)
		} else {
			lock, err = lockStore(path, false)
		}
		if err != nil {
			return nil, fmt.Errorf("episode store: open %s: %w", path, err)
		}
		// Nothing holds a read-only store without a lock file: its reads
		// check that the file is the one opened.
		if lock == nil {
			if guard, err = newFileGuard(path); err != nil {
				return nil, fmt.Errorf("episode store: open %s: %w", path, err)
			}
		}
	}
	db, err := openDB(ctx, path, busy, opts.ReadOnly, guard)
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

// openDB opens the database, its every statement checking guard first
// when there is one (guard.go). Read-only, a WAL store whose log and shm
// index are gone and cannot be made (a closed store in a directory no one
// may write: a backup) is read as immutable: nothing can be writing it,
// since a writer would need those files.
func openDB(ctx context.Context, path string, busy time.Duration, readOnly bool, guard *fileGuard) (*sql.DB, error) {
	db, err := sqlOpen(dsn(path, busy, readOnly), guard)
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
	db, err = sqlOpen(dsn(path, busy, readOnly)+"&immutable=1", guard)
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
// file; a writable one creates it when missing and needs to write it. A
// missing folder is named: "no such file" would blame the store.
func openable(path string, readOnly bool) error {
	if readOnly {
		f, err := os.Open(path)
		if err != nil {
			if m := missingFolder(path, false); m != nil {
				return m
			}
			return err
		}
		return f.Close()
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		if m := missingFolder(path, true); m != nil {
			return m
		}
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("%w (to search a store you may not write, open it read-only: -readonly)", err)
		}
		return err
	}
	return f.Close()
}

// missingFolder returns an error naming the folder of path when it does
// not exist (saying to create it first when the caller would create the
// file) or is no folder, nil otherwise: the open that follows then says
// what is wrong in the system's words. A file in a missing folder would
// otherwise be reported as missing itself, or as its lock file.
func missingFolder(path string, creates bool) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) && creates:
		return fmt.Errorf("the folder %s does not exist (create it first)", dir)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("the folder %s does not exist", dir)
	case err == nil && !fi.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}

// noStore says that there is no store at path, naming its folder where that
// is what is missing.
func noStore(path string) error {
	if err := missingFolder(path, false); err != nil {
		return fmt.Errorf("%s: no such store: %w", path, err)
	}
	return fmt.Errorf("%s: no such store", path)
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

// ReadOnly reports whether the store was opened read-only (Options.ReadOnly):
// its writes return ErrReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

// DB returns the underlying database. Only tests use it, to look at rows or
// to damage a store for Check and Reindex; a write through it bypasses the
// Store's counts and in-memory indexes.
func (s *Store) DB() *sql.DB { return s.db }

// Exists reports whether a store file exists at path.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
