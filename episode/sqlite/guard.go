package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync/atomic"

	"github.com/mattn/go-sqlite3"
)

// ErrReplaced is wrapped by the error of every read of a read-only Store
// that holds no lock (lock.go: its directory had no lock file and it could
// not make one) once the file at its path is no longer the one it opened:
// a restore renamed another over it, and the Store's connections would go
// on reading the old one.
var ErrReplaced = errors.New("the store file was replaced since it was opened (a restore?): open it again")

// fileGuard tells whether the file at path is still the one a Store opened:
// the same device and inode. Once it is not, it says so for good.
type fileGuard struct {
	path     string
	opened   os.FileInfo
	replaced atomic.Bool
}

// newFileGuard remembers the file now at path.
func newFileGuard(path string) (*fileGuard, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	os.SameFile(fi, fi) // where the identity is read lazily (Windows), read it now
	return &fileGuard{path: path, opened: fi}, nil
}

// check returns an error wrapping ErrReplaced when the file at the path is
// no longer (or no more) the one opened; one stat.
func (g *fileGuard) check() error {
	if !g.replaced.Load() {
		fi, err := os.Stat(g.path)
		switch {
		case err == nil && os.SameFile(g.opened, fi):
			return nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s: cannot tell whether the store file was replaced: %w", g.path, err)
		}
		g.replaced.Store(true)
	}
	return fmt.Errorf("%s: %w", g.path, ErrReplaced)
}

// sqliteDriver opens the connections of a guarded database: the driver
// sql.Open("sqlite3") uses, which has no hooks (sqlite-vec and omoide_bm25
// come with every connection: sqliteconfig.go).
var sqliteDriver = &sqlite3.SQLiteDriver{}

// sqlOpen opens the database of dsn; with a guard, every statement run on
// it (a query, an exec, a prepared statement's run, a new connection) first
// checks it. The check sits below database/sql so that no read can miss
// it, whichever of the Store's paths it takes (its prepared statements,
// its direct queries, its transactions, Conn, DB).
func sqlOpen(dsn string, g *fileGuard) (*sql.DB, error) {
	if g == nil {
		return sql.Open("sqlite3", dsn)
	}
	return sql.OpenDB(guardedConnector{dsn: dsn, g: g}), nil
}

// guardedConnector makes guarded connections.
type guardedConnector struct {
	dsn string
	g   *fileGuard
}

func (c guardedConnector) Connect(context.Context) (driver.Conn, error) {
	if err := c.g.check(); err != nil {
		return nil, err
	}
	conn, err := sqliteDriver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(*sqlite3.SQLiteConn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("the SQLite driver made a %T, not a *sqlite3.SQLiteConn", conn)
	}
	return &guardedConn{SQLiteConn: sc, g: c.g}, nil
}

func (c guardedConnector) Driver() driver.Driver { return sqliteDriver }

// guardedConn is a connection whose every statement checks the guard
// first; what it does not override is the driver's own.
type guardedConn struct {
	*sqlite3.SQLiteConn
	g *fileGuard
}

func (c *guardedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.g.check(); err != nil {
		return nil, err
	}
	return c.SQLiteConn.QueryContext(ctx, query, args)
}

func (c *guardedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := c.g.check(); err != nil {
		return nil, err
	}
	return c.SQLiteConn.ExecContext(ctx, query, args)
}

func (c *guardedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.g.check(); err != nil {
		return nil, err
	}
	st, err := c.SQLiteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	ss, ok := st.(*sqlite3.SQLiteStmt)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("the SQLite driver prepared a %T, not a *sqlite3.SQLiteStmt", st)
	}
	return &guardedStmt{SQLiteStmt: ss, g: c.g}, nil
}

// Query, Exec and Prepare are the context-free forms, which database/sql
// does not call when the others exist: guarded all the same.
func (c *guardedConn) Query(query string, args []driver.Value) (driver.Rows, error) {
	if err := c.g.check(); err != nil {
		return nil, err
	}
	return c.SQLiteConn.Query(query, args)
}

func (c *guardedConn) Exec(query string, args []driver.Value) (driver.Result, error) {
	if err := c.g.check(); err != nil {
		return nil, err
	}
	return c.SQLiteConn.Exec(query, args)
}

func (c *guardedConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// guardedStmt is a prepared statement whose every run checks the guard
// first: the Store's cached statements are prepared once and run many
// times.
type guardedStmt struct {
	*sqlite3.SQLiteStmt
	g *fileGuard
}

func (s *guardedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := s.g.check(); err != nil {
		return nil, err
	}
	return s.SQLiteStmt.QueryContext(ctx, args)
}

func (s *guardedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if err := s.g.check(); err != nil {
		return nil, err
	}
	return s.SQLiteStmt.ExecContext(ctx, args)
}

func (s *guardedStmt) Query(args []driver.Value) (driver.Rows, error) {
	if err := s.g.check(); err != nil {
		return nil, err
	}
	return s.SQLiteStmt.Query(args)
}

func (s *guardedStmt) Exec(args []driver.Value) (driver.Result, error) {
	if err := s.g.check(); err != nil {
		return nil, err
	}
	return s.SQLiteStmt.Exec(args)
}
