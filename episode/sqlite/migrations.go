package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/omoide/omoide/vecindex"
)

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
	migrateV9,
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

// migrateV2 adds the FTS5 vocabulary view that gives each term's document
// frequency (for the inject gate's IDF weights).
func migrateV2(ctx context.Context, tx *sql.Tx, _ int) error {
	// The schema-1 table, as it was: migrateV4 rebuilds both.
	_, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE episodes_vocab USING fts5vocab(episodes_fts, 'row')`)
	return err
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

// migrateV8 adds the record of erasures and its key.
func migrateV8(ctx context.Context, tx *sql.Tx, _ int) error {
	key := make([]byte, erasureKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, erasuresDDL); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)`, metaErasureKey, hex.EncodeToString(key))
	return err
}

// migrateV9 indexes the sensitive episodes, private and secret, by person
// (sensitiveIndexSQL): a person's count under a sensitivity ceiling is their
// partition's count less those above it, counted without reading the
// normal ones, most of a person's.
func migrateV9(ctx context.Context, tx *sql.Tx, _ int) error {
	_, err := tx.ExecContext(ctx, sensitiveIndexSQL)
	return err
}
