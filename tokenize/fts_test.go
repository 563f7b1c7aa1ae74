package tokenize

import (
	"database/sql"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// openFTS opens an in-memory SQLite database holding an FTS5 table
// turns(user_text) with the unicode61 tokenizer, as a store would create it,
// and inserts rows.
func openFTS(tb testing.TB, rows ...string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		tb.Fatalf("open sqlite: %v", err)
	}
	// Each connection to ":memory:" is a separate database: keep one.
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE turns USING fts5(user_text, tokenize = 'unicode61')`); err != nil {
		tb.Fatalf("create FTS5 table (build with -tags sqlite_fts5): %v", err)
	}
	for _, r := range rows {
		if _, err := db.Exec(`INSERT INTO turns(user_text) VALUES (?)`, r); err != nil {
			tb.Fatalf("insert %q: %v", r, err)
		}
	}
	return db
}

// search runs expr as a store does, MATCH ranked by BM25, and returns the
// rowids found.
func search(db *sql.DB, expr string) ([]int64, error) {
	rows, err := db.Query(`SELECT rowid, bm25(turns) FROM turns WHERE turns MATCH ? ORDER BY bm25(turns)`, expr)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
