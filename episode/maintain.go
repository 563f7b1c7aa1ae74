package episode

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"

	"github.com/omoide/omoide/embed"
)

// Stats describes a store's contents.
type Stats struct {
	Meta
	Episodes   int   // rows of the episodes table
	Users      int   // distinct users
	FTSRows    int   // rows of the FTS5 index
	VectorRows int   // rows of the vec0 index
	FileBytes  int64 // the database file with its WAL
}

// Stats counts the store's rows. The three counts agree in a healthy store.
func (s *Store) Stats(ctx context.Context, path string) (Stats, error) {
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
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			st.FileBytes += fi.Size()
		}
	}
	return st, nil
}

// DefaultReembedBatch is how many episodes Reembed embeds per call.
const DefaultReembedBatch = 256

// Reembed rebuilds the vector index of the store at path with embedder e and
// records e as the store's embedder, in one transaction: if anything fails the
// store keeps its old vectors and embedder. It needs no other open Store on
// path (the vector table is replaced). progress, when not nil, is called after
// each batch. It returns the number of episodes embedded.
func Reembed(ctx context.Context, path string, e embed.Embedder, batch int, progress func(done, total int)) (int, error) {
	if batch <= 0 {
		batch = DefaultReembedBatch
	}
	id := e.Identity()
	if id.Dim <= 0 || id.Name == "" {
		return 0, fmt.Errorf("episode store: reembed: invalid embedder identity %q", id)
	}
	if !Exists(path) {
		return 0, fmt.Errorf("episode store: reembed: %s: no such store", path)
	}
	// Open with the new embedder's identity check disabled: read the recorded
	// analyzer, then rebuild the vectors under the new identity.
	s := &Store{embedder: e, dim: id.Dim}
	db, err := sql.Open("sqlite3", dsn(path, DefaultBusyTimeout))
	if err != nil {
		return 0, fmt.Errorf("episode store: reembed: %w", err)
	}
	defer db.Close()
	s.db = db
	registerVec.Do(registerSQLiteVec)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("episode store: reembed: begin: %w", err)
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil || version != SchemaVersion {
		return 0, fmt.Errorf("episode store: reembed: schema version %d, want %d (open the store once to migrate it): %v", version, SchemaVersion, err)
	}
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM episodes`).Scan(&total); err != nil {
		return 0, fmt.Errorf("episode store: reembed: %w", err)
	}
	for _, q := range []string{`DROP TABLE episodes_vec`, vecTableSQL(id.Dim)} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return 0, fmt.Errorf("episode store: reembed: %w", err)
		}
	}
	done := 0
	for lastID := int64(0); ; {
		eps, err := episodesAfter(ctx, tx, lastID, batch)
		if err != nil {
			return done, fmt.Errorf("episode store: reembed: %w", err)
		}
		if len(eps) == 0 {
			break
		}
		texts := make([]string, len(eps))
		for i, ep := range eps {
			texts[i] = ep.EmbedText()
		}
		vecs, err := e.Embed(ctx, texts)
		if err != nil {
			return done, fmt.Errorf("episode store: reembed: episodes %d..%d: %w", eps[0].ID, eps[len(eps)-1].ID, err)
		}
		if len(vecs) != len(eps) {
			return done, fmt.Errorf("episode store: reembed: embedder returned %d vectors for %d texts", len(vecs), len(eps))
		}
		for i, ep := range eps {
			blob, err := s.vectorBlob(vecs[i])
			if err != nil {
				return done, fmt.Errorf("episode store: reembed: episode %d: %w", ep.ID, err)
			}
			if _, err := tx.ExecContext(ctx, insertVectorSQL, vectorArgs(ep, blob)...); err != nil {
				return done, fmt.Errorf("episode store: reembed: episode %d: %w", ep.ID, err)
			}
		}
		done += len(eps)
		lastID = eps[len(eps)-1].ID
		if progress != nil {
			progress(done, total)
		}
	}
	for k, v := range map[string]string{metaEmbedderName: id.Name, metaEmbedderDim: strconv.Itoa(id.Dim)} {
		if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = ?`, v, k); err != nil {
			return done, fmt.Errorf("episode store: reembed: record %s: %w", k, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return done, fmt.Errorf("episode store: reembed: commit: %w", err)
	}
	return done, nil
}

func episodesAfter(ctx context.Context, tx *sql.Tx, after int64, n int) ([]Episode, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+episodeColumns+` FROM episodes WHERE id > ? ORDER BY id LIMIT ?`, after, n)
	if err != nil {
		return nil, err
	}
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
