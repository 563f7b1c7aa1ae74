package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Backup writes a consistent copy of the store to path, a new file, while
// other connections and processes go on reading and writing (SQLite's VACUUM
// INTO reads one snapshot): the copy is compact, holds no free pages (and so
// nothing erased), and opens as a store of its own.
func (s *Store) Backup(ctx context.Context, path string) error {
	// Else SQLite's "unable to open database: … no such file" blames the copy.
	if err := missingFolder(path, true); err != nil {
		return fmt.Errorf("episode store: backup to %s: %w", path, err)
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("episode store: backup to %s: the file exists (a backup never overwrites)", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("episode store: backup to %s: %w", path, err)
	}
	if err := s.vacuumInto(ctx, path); err != nil {
		os.Remove(path) // a partial copy is no backup
		return fmt.Errorf("episode store: backup to %s: %w", path, err)
	}
	return nil
}

// vacuumInto runs VACUUM INTO on one connection. A read-only store's
// connections refuse it (query_only) though it writes only the new file:
// the connection lifts query_only for it, its file still opened read-only.
func (s *Store) vacuumInto(ctx context.Context, path string) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if s.readOnly {
		if _, err := conn.ExecContext(ctx, `PRAGMA query_only = 0`); err != nil {
			return err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA query_only = 1`)
	}
	_, err = conn.ExecContext(ctx, `VACUUM INTO ?`, path)
	return err
}
