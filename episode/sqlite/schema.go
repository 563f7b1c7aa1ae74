package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/tokenize"
)

// SchemaVersion is the schema this package writes (PRAGMA user_version).
const SchemaVersion = 9

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

// sensitiveIndexSQL indexes the private and secret episodes by person and
// sensitivity, and no normal one (schema 9): counting a person's episodes
// above a ceiling reads only these. SQLite uses a partial index only for a
// query whose WHERE holds the index's term as written (countUpToSQL,
// peopleWithSQL).
const sensitiveIndexSQL = `CREATE INDEX episodes_sensitive ON episodes (user, sensitivity) WHERE sensitivity > 0`

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
		return Meta{}, fmt.Errorf("episode store: %w", noStore(path))
	}
	registerVec.Do(registerSQLiteVec)
	db, err := openDB(ctx, path, DefaultBusyTimeout, true, nil)
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
