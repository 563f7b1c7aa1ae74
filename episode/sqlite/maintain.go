package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/tokenize"
	"github.com/omoide/omoide/vecindex"
)

// Stats describes a store's contents.
type Stats struct {
	Meta
	Episodes   int   // rows of the episodes table
	Users      int   // distinct users
	FTSRows    int   // rows of the FTS5 index
	VectorRows int   // rows of the vec0 index
	FileBytes  int64 // the database file with its WAL
	// FreeBytes is the part of the file on its free list: pages that
	// removals returned, zeroed, which later writes reuse before the file
	// grows (FileBytes - FreeBytes is what the data takes).
	FreeBytes int64
}

// Stats counts the store's rows and measures its file. The three counts
// agree in a healthy store.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Meta: s.Meta()}
	for _, q := range []struct {
		sql string
		dst *int
	}{
		{`SELECT count(*) FROM episodes`, &st.Episodes},
		{`SELECT count(DISTINCT user) FROM episodes`, &st.Users},
		{`SELECT count(*) FROM episodes_fts`, &st.FTSRows},
		{`SELECT count(*) FROM episodes_vec`, &st.VectorRows},
	} {
		if err := s.db.QueryRowContext(ctx, q.sql).Scan(q.dst); err != nil {
			return st, fmt.Errorf("episode store: stats: %w", err)
		}
	}
	for _, p := range []string{s.path, s.path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			st.FileBytes += fi.Size()
		}
	}
	free, err := s.freeBytes(ctx)
	if err != nil {
		return st, fmt.Errorf("episode store: stats: %w", err)
	}
	st.FreeBytes = free
	return st, nil
}

// DefaultReembedBatch is how many episodes Reembed embeds per call.
const DefaultReembedBatch = 256

// Reembed rebuilds the vector index of the store at path with embedder e and
// records e as the store's embedder, in one transaction: if anything fails the
// store keeps its old vectors and embedder. progress, when not nil, is called
// after each batch. It returns the number of episodes embedded. It takes the
// store's lock exclusive (lock.go), so it refuses, with an error wrapping
// ErrHeld, while any Store is open on path, read-only or not, in this
// process or another: an open Store would go on with the old vectors'
// dimension.
//
// It takes a path, not an open Store: Open refuses a store that records
// another embedder than the one it is given, and the caller of Reembed holds
// the new embedder (the old one may be gone); an open Store would also keep
// the old dimension and in-memory indexes after the vectors changed under it.
func Reembed(ctx context.Context, path string, e embed.Embedder, batch int, progress func(done, total int)) (int, error) {
	if batch <= 0 {
		batch = DefaultReembedBatch
	}
	id := e.Identity()
	if id.Dim <= 0 || id.Name == "" {
		return 0, fmt.Errorf("episode store: reembed: invalid embedder identity %q", id)
	}
	// Not Open: the recorded identity is the old one, which is the point.
	s := &Store{path: path, embedder: e, dim: id.Dim}
	return s.rebuildFile(ctx, "reembed", rebuildVectors, batch, progress, map[string]string{metaEmbedderName: id.Name, metaEmbedderDim: strconv.Itoa(id.Dim)})
}

// Reanalyze rebuilds the full-text index of the store at path with analyzer
// a and records a as the store's analyzer, in one transaction: if anything
// fails the store keeps its old index and analyzer. The vectors are left as
// they are. Like Reembed it takes a path, not an open Store (Open refuses an
// analyzer other than the recorded one), and it refuses, with an error
// wrapping ErrHeld, while a Store, read-only or not, is open on path: it
// would go on searching with the old analyzer. It returns the number of
// episodes analyzed; progress, when not nil, is called after each batch.
func Reanalyze(ctx context.Context, path string, a tokenize.Analyzer, progress func(done, total int)) (int, error) {
	if a == nil {
		return 0, errors.New("episode store: reanalyze: no analyzer")
	}
	s := &Store{path: path, analyzer: a}
	return s.rebuildFile(ctx, "reanalyze", rebuildFTS, DefaultReembedBatch, progress, map[string]string{metaAnalyzer: a.Name()})
}

// rebuildFile is Reembed and Reanalyze: it opens s.path outside Open (its
// recorded embedder or analyzer is the one being replaced), rebuilds what
// says and records meta, in one transaction.
func (s *Store) rebuildFile(ctx context.Context, op string, what, batch int, progress func(done, total int), meta map[string]string) (int, error) {
	if !Exists(s.path) {
		return 0, fmt.Errorf("episode store: %s: %w", op, noStore(s.path))
	}
	// Open Stores would go on with the old embedder or analyzer: none may be.
	lock, err := lockStore(s.path, true)
	if errors.Is(err, ErrHeld) {
		return 0, fmt.Errorf("episode store: %s %s: %w (stop it first)", op, s.path, err)
	}
	if err != nil {
		return 0, fmt.Errorf("episode store: %s %s: %w", op, s.path, err)
	}
	defer lock.Close()
	db, err := sql.Open("sqlite3", dsn(s.path, DefaultBusyTimeout, false))
	if err != nil {
		return 0, fmt.Errorf("episode store: %s: %w", op, err)
	}
	defer db.Close()
	s.db = db
	registerVec.Do(registerSQLiteVec)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("episode store: %s: begin: %w", op, err)
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil || version != SchemaVersion {
		return 0, fmt.Errorf("episode store: %s: schema version %d, want %d (open the store once to migrate it): %v", op, version, SchemaVersion, err)
	}
	done, err := s.rebuild(ctx, tx, what, batch, progress)
	if err != nil {
		return done, fmt.Errorf("episode store: %s: %w", op, err)
	}
	for k, v := range meta {
		if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = ?`, v, k); err != nil {
			return done, fmt.Errorf("episode store: %s: record %s: %w", op, k, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return done, fmt.Errorf("episode store: %s: commit: %w", op, err)
	}
	return done, nil
}

func episodesAfter(ctx context.Context, tx *sql.Tx, after int64, n int) ([]episode.Episode, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+episodeColumns+` FROM episodes WHERE id > ? ORDER BY id LIMIT ?`, after, n)
	if err != nil {
		return nil, err
	}
	return scanEpisodes(rows)
}

// CheckReport is what Check found. A healthy store has no Problems.
type CheckReport struct {
	Stats
	Recorded         Meta     // the schema version, embedder identity and analyzer the store records
	VectorDim        int      // the dimension the vector table was created with
	MissingFTS       []int64  // episodes without an FTS row
	MissingVector    []int64  // episodes without a vector
	MissingQuantized []int64  // episodes without a quantized vector of the store's dimension
	OrphanFTS        []int64  // FTS rows without an episode
	OrphanVector     []int64  // vectors without an episode
	WrongPartition   []int64  // vectors filed under another user than their episode's
	Problems         []string // one line per problem, empty when healthy
	// BadNames are the people whose names CheckUser's rule refuses (stored
	// before it): no problem of the tables, which reindex cannot mend; they
	// can be exported and forgotten, and take new episodes under a new name.
	BadNames []BadName
	// BadIDs are the episodes whose external ids CheckExternalID's rule
	// refuses (stored before it): reached by their store ids, for delete
	// and export; no new episode takes such an id.
	BadIDs []BadID
}

// maxListed bounds the ids a CheckReport lists per kind of problem.
const maxListed = 100

// Check verifies that the store records the embedder identity and analyzer
// it was opened with and that the vector table has the recorded dimension;
// that the episodes, FTS and vector tables agree row for row, every episode
// has its quantized vector and every vector sits in its episode's user
// partition; that the per-person episode counts are right; and that SQLite's
// own integrity check passes. It reads only.
func (s *Store) Check(ctx context.Context) (CheckReport, error) {
	var r CheckReport
	var err error
	if r.Stats, err = s.Stats(ctx); err != nil {
		return r, err
	}
	if err := s.checkIdentity(ctx, &r); err != nil {
		return r, fmt.Errorf("episode store: check identity: %w", err)
	}
	if r.BadNames, err = s.BadNames(ctx); err != nil {
		return r, err
	}
	if r.BadIDs, err = s.BadIDs(ctx); err != nil {
		return r, err
	}
	queries := []struct {
		dst  *[]int64
		what string
		sql  string
	}{
		{&r.MissingFTS, "episodes without an FTS row", `SELECT e.id FROM episodes e LEFT JOIN episodes_fts f ON f.rowid = e.id WHERE f.rowid IS NULL ORDER BY e.id`},
		{&r.MissingVector, "episodes without a vector", `SELECT e.id FROM episodes e WHERE NOT EXISTS (SELECT 1 FROM episodes_vec v WHERE v.episode_id = e.id) ORDER BY e.id`},
		{&r.MissingQuantized, "episodes without a quantized vector of the store's dimension",
			`SELECT id FROM episodes WHERE vq IS NULL OR length(vq) != ` + strconv.Itoa(len(vecindex.Quantize(make([]float32, s.dim)))) + ` ORDER BY id`},
		{&r.OrphanFTS, "FTS rows without an episode", `SELECT f.rowid FROM episodes_fts f LEFT JOIN episodes e ON e.id = f.rowid WHERE e.id IS NULL ORDER BY f.rowid`},
		{&r.OrphanVector, "vectors without an episode", `SELECT v.episode_id FROM episodes_vec v LEFT JOIN episodes e ON e.id = v.episode_id WHERE e.id IS NULL ORDER BY v.episode_id`},
		{&r.WrongPartition, "vectors in another user's partition", `SELECT v.episode_id FROM episodes_vec v JOIN episodes e ON e.id = v.episode_id WHERE v.user != e.user ORDER BY v.episode_id`},
	}
	for _, q := range queries {
		ids, n, err := listIDs(ctx, s.db, q.sql)
		if err != nil {
			return r, fmt.Errorf("episode store: check %s: %w", q.what, err)
		}
		*q.dst = ids
		if n > 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("%d %s", n, q.what))
		}
	}
	var miscounted int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM
		(SELECT user, count(*) AS n FROM episodes GROUP BY user) e FULL JOIN partitions p ON p.user = e.user
		WHERE coalesce(e.n, 0) != coalesce(p.episodes, -1)`).Scan(&miscounted); err != nil {
		return r, fmt.Errorf("episode store: check partition counts: %w", err)
	}
	if miscounted > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("%d people whose episode count in the partitions table is wrong", miscounted))
	}
	rows, err := s.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return r, fmt.Errorf("episode store: check integrity: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return r, fmt.Errorf("episode store: check integrity: %w", err)
		}
		if line != "ok" {
			r.Problems = append(r.Problems, "sqlite integrity: "+line)
		}
	}
	return r, rows.Err()
}

// checkIdentity reads the identity the store records and the dimension of
// its vector table into r, and adds a problem for each disagreement with the
// embedder and analyzer s was opened with.
func (s *Store) checkIdentity(ctx context.Context, r *CheckReport) error {
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM meta`)
	if err != nil {
		return err
	}
	meta := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return err
		}
		meta[k] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&r.Recorded.SchemaVersion); err != nil {
		return err
	}
	r.Recorded.Embedder.Name, r.Recorded.Analyzer = meta[metaEmbedderName], meta[metaAnalyzer]
	dim, dimErr := strconv.Atoi(meta[metaEmbedderDim])
	r.Recorded.Embedder.Dim = dim
	switch id := s.embedder.Identity(); {
	case r.Recorded.Embedder.Name == "" || dimErr != nil || dim <= 0:
		r.Problems = append(r.Problems, fmt.Sprintf("embedder identity not recorded (name %q, dimension %q)", meta[metaEmbedderName], meta[metaEmbedderDim]))
	case r.Recorded.Embedder != id:
		r.Problems = append(r.Problems, fmt.Sprintf("the store records embedder %s, but is open with %s", r.Recorded.Embedder, id))
	}
	if r.Recorded.Analyzer != s.analyzer.Name() {
		r.Problems = append(r.Problems, fmt.Sprintf("the store records analyzer %q, but is open with %q", r.Recorded.Analyzer, s.analyzer.Name()))
	}
	if r.Recorded.SchemaVersion != SchemaVersion {
		r.Problems = append(r.Problems, fmt.Sprintf("schema version %d, want %d", r.Recorded.SchemaVersion, SchemaVersion))
	}
	var table string
	if err := s.db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = 'episodes_vec'`).Scan(&table); err != nil {
		return fmt.Errorf("vector table: %w", err)
	}
	if m := vecDimRE.FindStringSubmatch(table); m != nil {
		r.VectorDim, _ = strconv.Atoi(m[1])
	}
	if r.VectorDim != s.dim {
		r.Problems = append(r.Problems, fmt.Sprintf("the vector table holds %d-dimension vectors, the embedder %s makes %d", r.VectorDim, s.embedder.Identity(), s.dim))
	}
	return nil
}

var vecDimRE = regexp.MustCompile(`\bembedding\s+float\[(\d+)\]`)

// listIDs returns up to maxListed ids of a query and how many it returned.
func listIDs(ctx context.Context, db *sql.DB, query string) ([]int64, int, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var ids []int64
	n := 0
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		if n < maxListed {
			ids = append(ids, id)
		}
		n++
	}
	return ids, n, rows.Err()
}

// rebuildVectors embeds eps and writes their vectors and quantized vectors.
func (s *Store) rebuildVectors(ctx context.Context, tx *sql.Tx, eps []episode.Episode) error {
	texts := make([]string, len(eps))
	for i, e := range eps {
		texts[i] = e.EmbedText()
	}
	vecs, err := s.embedder.Embed(ctx, texts)
	if err == nil && len(vecs) != len(eps) {
		err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(eps))
	}
	if err != nil {
		return fmt.Errorf("episodes %d..%d: %w", eps[0].ID, eps[len(eps)-1].ID, err)
	}
	for i, e := range eps {
		blob, err := s.vectorBlob(vecs[i])
		if err != nil {
			return fmt.Errorf("episode %d: %w", e.ID, err)
		}
		if _, err := tx.ExecContext(ctx, insertVectorSQL, vectorArgs(e, blob)...); err != nil {
			return fmt.Errorf("episode %d: vector: %w", e.ID, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE episodes SET vq = ? WHERE id = ?`, vecindex.Quantize(vecs[i]), e.ID); err != nil {
			return fmt.Errorf("episode %d: quantized vector: %w", e.ID, err)
		}
	}
	return nil
}

// Reindex rebuilds the FTS and vector indexes from the episodes table with
// the store's analyzer and embedder, in one transaction: after it, Check
// finds the three tables in agreement. progress, when not nil, is called
// after each batch of DefaultReembedBatch episodes.
//
// It keeps the store's shared lock, unlike Reembed and Reanalyze: it
// rewrites rows in one transaction, never the file, with the analyzer and
// embedder the store records, and other Stores on the file, in this process
// or another, see it whole (a new generation of each person's partition
// reloads their in-memory indexes; the count of removals from the full-text
// index starts their phrase counts over). They wait for its write lock
// meanwhile, up to their busy timeout.
func (s *Store) Reindex(ctx context.Context, progress func(done, total int)) (int, error) {
	if s.readOnly {
		return 0, fmt.Errorf("episode store: reindex: %w", ErrReadOnly)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("episode store: reindex: begin: %w", err)
	}
	defer tx.Rollback()
	done, err := s.rebuild(ctx, tx, rebuildVectors|rebuildFTS, DefaultReembedBatch, progress)
	if err != nil {
		return done, fmt.Errorf("episode store: reindex: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return done, fmt.Errorf("episode store: reindex: commit: %w", err)
	}
	return done, nil
}

// What rebuild re-creates.
const (
	rebuildVectors = 1 << iota // the vector index, the quantized vectors and the per-person counts, with s's embedder
	rebuildFTS                 // the full-text index, with s's analyzer
)

// rebuild re-creates what says (rebuildVectors, rebuildFTS) for every
// episode, inside tx.
func (s *Store) rebuild(ctx context.Context, tx *sql.Tx, what int, batch int, progress func(done, total int)) (int, error) {
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM episodes`).Scan(&total); err != nil {
		return 0, err
	}
	vectors, fts := what&rebuildVectors != 0, what&rebuildFTS != 0
	var stmts []string
	if vectors {
		stmts = append(stmts, `DROP TABLE episodes_vec`, vecTableSQL(s.dim), vecChunksIndexSQL,
			// The per-person counts, in case they were changed behind the
			// triggers' back; a new generation makes in-memory indexes reload.
			`INSERT INTO partitions (user, gen, episodes) SELECT user, 1, count(*) FROM episodes WHERE true GROUP BY user
			ON CONFLICT (user) DO UPDATE SET gen = gen + 1, episodes = excluded.episodes`,
			`UPDATE partitions SET gen = gen + 1, episodes = 0 WHERE episodes != 0 AND user NOT IN (SELECT user FROM episodes)`)
	}
	if fts { // a new, empty index: dropping frees (and, securely, zeroes) the old one's pages at once
		stmts = append(stmts, `DROP TABLE episodes_vocab`, `DROP TABLE episodes_fts`, ftsTableSQL, ftsSecureDeleteSQL, ftsAutomergeSQL, vocabTableSQL, bumpFTSRemovalsSQL)
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return 0, err
		}
	}
	done := 0
	for lastID := int64(0); ; {
		eps, err := episodesAfter(ctx, tx, lastID, batch)
		if err != nil {
			return done, err
		}
		if len(eps) == 0 {
			return done, nil
		}
		var rows []ftsRow
		if vectors {
			if err := s.rebuildVectors(ctx, tx, eps); err != nil {
				return done, err
			}
		}
		if fts {
			for _, e := range eps {
				rows = append(rows, ftsRow{ID: e.ID, UserText: s.analyzer.Index(e.UserText), ReplyText: s.analyzer.Index(e.ReplyText), Person: PersonToken(e.User)})
			}
		}
		if err := insertFTS(ctx, tx, rows); err != nil {
			return done, fmt.Errorf("episodes %d..%d: %w", eps[0].ID, eps[len(eps)-1].ID, err)
		}
		done += len(eps)
		lastID = eps[len(eps)-1].ID
		if progress != nil {
			progress(done, total)
		}
	}
}

// Classes counts user's episodes ("" for every person's) by kind, state and
// sensitivity, the attributes a search filters on.
func (s *Store) Classes(ctx context.Context, user string) ([]episode.Class, error) {
	where, args := "", []any(nil)
	if user != "" {
		where, args = " WHERE user = ?", []any{user}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT kind, state, sensitivity, count(*) FROM episodes`+where+` GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, args...)
	if err != nil {
		return nil, fmt.Errorf("episode store: classes: %w", err)
	}
	defer rows.Close()
	var out []episode.Class
	for rows.Next() {
		var c episode.Class
		if err := rows.Scan(&c.Kind, &c.State, &c.Sensitivity, &c.Episodes); err != nil {
			return nil, fmt.Errorf("episode store: classes: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("episode store: classes: %w", err)
	}
	return out, nil
}
