package episode

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/tokenize"
	"github.com/omoide/omoide/vecindex"
)

// SchemaVersion is the schema this package writes (PRAGMA user_version).
const SchemaVersion = 8

// migrations[i] moves a store from version i to version i+1. Each runs in the
// same transaction as the version bump; add new ones at the end, never edit one
// that has shipped.
var migrations = []func(ctx context.Context, tx *sql.Tx, dim int) error{
	migrateV1,
	migrateV2,
	migrateV3,
	migrateV4,
	migrateV5,
	migrateV6,
	migrateV7,
	migrateV8,
}

// migrateV7 counts removals from the full-text index (ftsRemovalTriggerSQL),
// so that BM25's cached phrase counts know when to start over, and has FTS5
// merge segments two at a time (ftsAutomergeSQL).
func migrateV7(ctx context.Context, tx *sql.Tx, _ int) error {
	for _, q := range []string{ftsRemovalTriggerSQL, ftsAutomergeSQL} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// migrateV6 rebuilds the vector index in chunks of VectorChunk vectors
// (vecTableSQL), copying every vector, person by person.
func migrateV6(ctx context.Context, tx *sql.Tx, dim int) error {
	const cols = `episode_id, user, embedding, occurred_at, kind, state, sensitivity`
	for _, q := range []string{
		`CREATE TEMP TABLE episodes_vec_v5 AS SELECT ` + cols + ` FROM episodes_vec`,
		`DROP TABLE episodes_vec`,
		vecTableSQL(dim),
		vecChunksIndexSQL,
		`INSERT INTO episodes_vec (` + cols + `) SELECT ` + cols + ` FROM temp.episodes_vec_v5 ORDER BY user, episode_id`,
		`DROP TABLE temp.episodes_vec_v5`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// migrateV5 is erasure (docs/reliability.md). The full-text index's
// secure-delete removes a deleted episode's terms from the index's segments
// at once, rather than leaving them until a merge; one merge drops what
// earlier deletes left behind. A person's partitions row can now be deleted
// (forget): a new row's generation starts from the clock, above any an
// in-memory index of the forgotten person may hold.
func migrateV5(ctx context.Context, tx *sql.Tx, _ int) error {
	for _, q := range []string{
		ftsSecureDeleteSQL,
		`INSERT INTO episodes_fts (episodes_fts) VALUES ('optimize')`,
		`DROP TRIGGER episodes_partition_insert`,
		partitionInsertTriggerSQL,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// migrateV4 rebuilds the FTS index with a third column, person, holding
// PersonToken(user): BM25 matches the person's token AND the query's terms,
// so FTS5 scores only that person's rows (a store of many people used to
// score every person's matches and drop all but one's in the join). The
// vocabulary view is rebuilt over the new table.
func migrateV4(ctx context.Context, tx *sql.Tx, _ int) error {
	stmts := []string{
		`DROP TABLE episodes_vocab`,
		`ALTER TABLE episodes_fts RENAME TO episodes_fts_v3`,
		ftsTableSQL,
		`INSERT INTO episodes_fts (rowid, user_text, reply_text, person)
			SELECT f.rowid, f.user_text, f.reply_text, ` + personTokenSQL + `
			FROM episodes_fts_v3 f JOIN episodes e ON e.id = f.rowid`,
		`DROP TABLE episodes_fts_v3`,
		vocabTableSQL,
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// ftsTableSQL creates the full-text index (schema 4): the analyzed text
// (tokenize.Analyzer.Index) of an episode's two sides, and its person's token
// (PersonToken), one row per episode, rowid = episodes.id.
const ftsTableSQL = `CREATE VIRTUAL TABLE episodes_fts USING fts5 (user_text, reply_text, person, tokenize = 'unicode61')`

// ftsSecureDeleteSQL makes the full-text index remove a deleted row's
// entries from its segments (FTS5's secure-delete option, persistent).
const ftsSecureDeleteSQL = `INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('secure-delete', 1)`

// partitionInsertTriggerSQL counts an inserted episode in its person's
// partitions row and bumps the row's generation; a new row's generation is
// the clock in microseconds (schema 5).
const partitionInsertTriggerSQL = `CREATE TRIGGER episodes_partition_insert AFTER INSERT ON episodes BEGIN
	INSERT INTO partitions (user, gen, episodes) VALUES (NEW.user, CAST(unixepoch('subsec') * 1000000 AS INTEGER), 1)
		ON CONFLICT (user) DO UPDATE SET gen = gen + 1, episodes = episodes + 1;
END`

// vocabTableSQL creates the FTS5 vocabulary view: each term's document
// frequency.
const vocabTableSQL = `CREATE VIRTUAL TABLE episodes_vocab USING fts5vocab(episodes_fts, 'row')`

// personTokenSQL is PersonToken(e.user) in SQL.
const personTokenSQL = `'p' || lower(hex(e.user))`

// PersonToken returns the FTS5 token that stands for user in the person
// column of the full-text index: "p" and the hexadecimal bytes of user, one
// unicode61 token that no two people share (searches match it in the person
// column only, and their terms in the text columns only).
func PersonToken(user string) string {
	return "p" + hex.EncodeToString([]byte(user))
}

// migrateV3 keeps each episode's quantized vector (vecindex.Quantize) in the
// episodes row, from which a big partition's in-memory index loads in one
// index range scan, and a table of partitions: per person, the number of
// episodes and a generation that every write to that person's episodes bumps
// (by trigger, whoever writes), so that an in-memory index knows it is stale;
// and a covering index for BM25's join.
func migrateV3(ctx context.Context, tx *sql.Tx, _ int) error {
	stmts := []string{
		`ALTER TABLE episodes ADD COLUMN vq BLOB`,
		`CREATE TABLE partitions (
			user     TEXT PRIMARY KEY,
			gen      INTEGER NOT NULL,
			episodes INTEGER NOT NULL
		) STRICT, WITHOUT ROWID`,
		`INSERT INTO partitions (user, gen, episodes) SELECT user, 1, count(*) FROM episodes GROUP BY user`,
		// BM25 joins every FTS match to its episode for the person and the
		// filters: this index holds what the join reads, so a match costs a
		// lookup in a narrow b-tree instead of a table row (2.5x faster).
		`CREATE INDEX episodes_filter ON episodes (id, user, occurred_at, kind, state, sensitivity)`,
		`CREATE TRIGGER episodes_partition_insert AFTER INSERT ON episodes BEGIN
			INSERT INTO partitions (user, gen, episodes) VALUES (NEW.user, 1, 1)
				ON CONFLICT (user) DO UPDATE SET gen = gen + 1, episodes = episodes + 1;
		END`,
		`CREATE TRIGGER episodes_partition_delete AFTER DELETE ON episodes BEGIN
			UPDATE partitions SET gen = gen + 1, episodes = episodes - 1 WHERE user = OLD.user;
		END`,
		`CREATE TRIGGER episodes_partition_update AFTER UPDATE ON episodes BEGIN
			UPDATE partitions SET gen = gen + 1 WHERE user IN (OLD.user, NEW.user);
		END`,
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return backfillQuantized(ctx, tx)
}

// backfillQuantized fills episodes.vq from the vector index.
func backfillQuantized(ctx context.Context, tx *sql.Tx) error {
	const batch = 1000
	for last := int64(0); ; {
		rows, err := tx.QueryContext(ctx, `SELECT e.id, v.embedding FROM episodes e JOIN episodes_vec v ON v.episode_id = e.id
			WHERE e.id > ? ORDER BY e.id LIMIT ?`, last, batch)
		if err != nil {
			return fmt.Errorf("quantize vectors: %w", err)
		}
		type row struct {
			id int64
			vq []byte
		}
		var todo []row
		for rows.Next() {
			var id int64
			var blob []byte
			if err := rows.Scan(&id, &blob); err != nil {
				rows.Close()
				return fmt.Errorf("quantize vectors: %w", err)
			}
			todo = append(todo, row{id, vecindex.Quantize(floatsOf(blob))})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("quantize vectors: %w", err)
		}
		if len(todo) == 0 {
			return nil
		}
		for _, r := range todo {
			if _, err := tx.ExecContext(ctx, `UPDATE episodes SET vq = ? WHERE id = ?`, r.vq, r.id); err != nil {
				return fmt.Errorf("quantize vector of episode %d: %w", r.id, err)
			}
		}
		last = todo[len(todo)-1].id
	}
}

// floatsOf decodes a vec0 float32 blob (little-endian).
func floatsOf(blob []byte) []float32 {
	v := make([]float32, len(blob)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
	}
	return v
}

// migrateV2 adds the FTS5 vocabulary view that gives each term's document
// frequency (for the inject gate's IDF weights).
func migrateV2(ctx context.Context, tx *sql.Tx, _ int) error {
	// The schema-1 table, as it was: migrateV4 rebuilds both.
	_, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE episodes_vocab USING fts5vocab(episodes_fts, 'row')`)
	return err
}

func migrateV1(ctx context.Context, tx *sql.Tx, dim int) error {
	stmts := []string{
		`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT`,
		`CREATE TABLE episodes (
			id          INTEGER PRIMARY KEY,
			user        TEXT NOT NULL,
			external_id TEXT,
			user_text   TEXT NOT NULL,
			reply_text  TEXT NOT NULL,
			occurred_at INTEGER NOT NULL,
			kind        INTEGER NOT NULL,
			state       INTEGER NOT NULL,
			sensitivity INTEGER NOT NULL,
			source      TEXT NOT NULL
		) STRICT`,
		`CREATE UNIQUE INDEX episodes_user_external ON episodes (user, external_id)`,
		`CREATE INDEX episodes_user_time ON episodes (user, occurred_at)`,
		// The analyzed text (tokenize.Analyzer.Index), one row per episode, rowid = episodes.id.
		`CREATE VIRTUAL TABLE episodes_fts USING fts5 (user_text, reply_text, tokenize = 'unicode61')`,
		vecTableSQLV1(dim),
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// vecTableSQLV1 created the vector index of schemas 1 to 5: vec0's default
// chunks of 1,024 vectors, one reserved whole for every person.
func vecTableSQLV1(dim int) string { return vecTable(dim, "") }

// vecTable creates the vector index's columns, then options (vec0's, each
// after a comma).
func vecTable(dim int, options string) string {
	return `CREATE VIRTUAL TABLE episodes_vec USING vec0 (
		episode_id  INTEGER PRIMARY KEY,
		user        TEXT PARTITION KEY,
		embedding   float[` + strconv.Itoa(dim) + `] distance_metric=cosine,
		occurred_at INTEGER,
		kind        INTEGER,
		state       INTEGER,
		sensitivity INTEGER` + options + `
	)`
}

// VectorChunk is the vectors a chunk of the vector index holds (vec0's
// chunk_size): a person's partition grows by one chunk at a time, so a
// person with few episodes costs one small chunk, not vec0's default 1,024
// vectors (1 MiB at 256 dimensions). A person with DefaultIndexMin episodes
// or more is searched in memory, so the exact scan of many small chunks is
// only ever a small person's (docs/performance.md, "Many people").
const VectorChunk = 8

// vecChunksIndexSQL indexes the vector index's chunks by person: sqlite-vec
// v0.1.6 finds a partition's chunks (for every KNN, and its last chunk for
// every insert) by a scan of all chunks, which grows with the number of
// people (schema 6).
const vecChunksIndexSQL = `CREATE INDEX episodes_vec_chunks_partition ON episodes_vec_chunks (partition00, chunk_id)`

// vecTableSQL creates the vector index (schema 6). The user partitions it so
// that a KNN scans one person's vectors, in chunks of VectorChunk; the
// metadata columns let the filters apply inside the KNN.
func vecTableSQL(dim int) string {
	return vecTable(dim, ",\n\t\tchunk_size = "+strconv.Itoa(VectorChunk))
}

const (
	metaEmbedderName = "embedder_name"
	metaEmbedderDim  = "embedder_dim"
	metaAnalyzer     = "analyzer"
)

// migrate brings the schema to SchemaVersion and checks (or, for a new store,
// records) the embedder identity and the analyzer. It returns the analyzer to
// use.
func (s *Store) migrate(ctx context.Context, id embed.Identity, analyzer tokenize.Analyzer) (tokenize.Analyzer, error) {
	if s.readOnly {
		return s.checkSchema(ctx, id, analyzer)
	}
	tx, err := s.db.BeginTx(ctx, nil) // immediate: one process migrates at a time
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return nil, fmt.Errorf("read schema version: %w", err)
	}
	if version > SchemaVersion {
		return nil, fmt.Errorf("schema version %d is newer than this omoide's %d", version, SchemaVersion)
	}
	fresh := version == 0
	if fresh {
		if err := noOtherTables(ctx, tx); err != nil {
			return nil, err
		}
	}
	for v := version; v < SchemaVersion; v++ {
		if err := migrations[v](ctx, tx, id.Dim); err != nil {
			return nil, fmt.Errorf("migrate schema %d -> %d: %w", v, v+1, err)
		}
	}
	if fresh {
		if analyzer == nil {
			analyzer = tokenize.CJK2()
		}
		for k, v := range map[string]string{metaEmbedderName: id.Name, metaEmbedderDim: strconv.Itoa(id.Dim), metaAnalyzer: analyzer.Name()} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)`, k, v); err != nil {
				return nil, fmt.Errorf("record %s: %w", k, err)
			}
		}
	} else if analyzer, err = checkMeta(ctx, tx, id, analyzer); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `PRAGMA user_version = `+strconv.Itoa(SchemaVersion)); err != nil {
		return nil, fmt.Errorf("write schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit schema: %w", err)
	}
	return analyzer, nil
}

// checkSchema is migrate for a read-only store: the schema must be this
// version's (a migration would write), and the recorded embedder and
// analyzer those given.
func (s *Store) checkSchema(ctx context.Context, id embed.Identity, analyzer tokenize.Analyzer) (tokenize.Analyzer, error) {
	var version int
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return nil, fmt.Errorf("read schema version: %w", err)
	}
	switch {
	case version == 0:
		return nil, errors.New("not an omoide store (no schema version)")
	case version != SchemaVersion:
		return nil, fmt.Errorf("schema version %d, this omoide's is %d: open it writable once to migrate it (read-only opens write nothing)", version, SchemaVersion)
	}
	return checkMeta(ctx, s.db, id, analyzer)
}

// noOtherTables refuses to add omoide's tables to a database that already
// holds tables of its own.
func noOtherTables(ctx context.Context, q queryer) error {
	var n int
	var name sql.NullString
	if err := q.QueryRowContext(ctx, `SELECT count(*), min(name) FROM sqlite_schema WHERE type = 'table'`).Scan(&n, &name); err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	if n > 0 {
		return fmt.Errorf("the file is a SQLite database of %d other tables (%q, …), not an omoide store: omoide keeps its own file", n, name.String)
	}
	return nil
}

// checkMeta checks that the store's recorded embedder is id and its analyzer
// the one given, and returns the analyzer (the recorded one when nil).
func checkMeta(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, id embed.Identity, analyzer tokenize.Analyzer) (tokenize.Analyzer, error) {
	meta, err := readMeta(ctx, q)
	if err != nil {
		return nil, err
	}
	stored := embed.Identity{Name: meta[metaEmbedderName]}
	stored.Dim, _ = strconv.Atoi(meta[metaEmbedderDim])
	if stored != id {
		return nil, fmt.Errorf("the store holds vectors of embedder %s, not %s: open it with %s, or re-embed it", stored, id, stored)
	}
	name := meta[metaAnalyzer]
	if analyzer == nil {
		if analyzer, err = tokenize.ByName(name); err != nil {
			return nil, fmt.Errorf("recorded analyzer: %w", err)
		}
	} else if analyzer.Name() != name {
		return nil, fmt.Errorf("the store's text index was built with analyzer %q, not %q", name, analyzer.Name())
	}
	return analyzer, nil
}

func readMeta(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT key, value FROM meta`)
	if err != nil {
		return nil, fmt.Errorf("read meta: %w", err)
	}
	defer rows.Close()
	meta := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("read meta: %w", err)
		}
		meta[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read meta: %w", err)
	}
	if meta[metaEmbedderName] == "" || meta[metaAnalyzer] == "" {
		return nil, errors.New("read meta: embedder or analyzer not recorded")
	}
	return meta, nil
}

// Meta describes a store: its schema version, embedder identity and analyzer.
type Meta struct {
	SchemaVersion int
	Embedder      embed.Identity
	Analyzer      string
}

// ReadMeta returns what the store at path records — schema version, embedder
// identity and analyzer — without an embedder, opening it read-only.
func ReadMeta(ctx context.Context, path string) (Meta, error) {
	if !Exists(path) {
		return Meta{}, fmt.Errorf("episode store: %s: no such store", path)
	}
	registerVec.Do(registerSQLiteVec)
	db, err := openDB(ctx, path, DefaultBusyTimeout, true)
	if err != nil {
		return Meta{}, fmt.Errorf("episode store: read meta of %s: %w", path, err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Meta{}, fmt.Errorf("episode store: read meta of %s: %w", path, err)
	}
	defer tx.Rollback()
	var m Meta
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&m.SchemaVersion); err != nil {
		return Meta{}, fmt.Errorf("episode store: read meta of %s: %w", path, err)
	}
	meta, err := readMeta(ctx, tx)
	if err != nil {
		return Meta{}, fmt.Errorf("episode store: %s: %w", path, err)
	}
	m.Embedder.Name, m.Analyzer = meta[metaEmbedderName], meta[metaAnalyzer]
	m.Embedder.Dim, _ = strconv.Atoi(meta[metaEmbedderDim])
	return m, nil
}

// Meta returns the store's recorded identity.
func (s *Store) Meta() Meta {
	return Meta{SchemaVersion: SchemaVersion, Embedder: s.embedder.Identity(), Analyzer: s.analyzer.Name()}
}
