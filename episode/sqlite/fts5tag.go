//go:build !sqlite_fts5 && !fts5

package sqlite

// Without the build tag sqlite_fts5, go-sqlite3 compiles SQLite without FTS5
// and every store would fail at run time ("no such function: fts5"). This
// line stops such a build at compile time instead, with the fix in the
// error.
var _ int = "omoide: build with -tags sqlite_fts5 (SQLite needs FTS5)"
