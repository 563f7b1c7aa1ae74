package sqlite

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/omoide/omoide/episode"
)

// TestBackupWhileWriting: a backup taken while another goroutine adds
// episodes is a store that passes Check, holds a prefix of the writes
// (whole batches only) and opens read-only; a second backup to the same
// file is refused.
func TestBackupWhileWriting(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, filepath.Join(dir, "live.db"), Options{})
	var wg sync.WaitGroup
	const batches, size = 40, 5
	wg.Go(func() {
		for b := range batches {
			batch := make([]episode.Episode, size)
			for i := range batch {
				batch[i] = ep(fmt.Sprintf("u%d", b%3), fmt.Sprintf("話%d-%d ラーメン", b, i), "うん", day)
			}
			if _, err := s.Add(ctx, batch); err != nil {
				t.Error(err)
				return
			}
		}
	})
	var copies []string
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("copy%d.db", i))
		if err := s.Backup(ctx, p); err != nil {
			t.Fatal(err)
		}
		copies = append(copies, p)
	}
	wg.Wait()
	for _, p := range copies {
		c := openStore(t, p, Options{ReadOnly: true})
		r, err := c.Check(ctx)
		if err != nil || len(r.Problems) != 0 {
			t.Fatalf("%s: check %+v, %v", p, r.Problems, err)
		}
		if r.Episodes%size != 0 {
			t.Errorf("%s holds %d episodes: half a batch", p, r.Episodes)
		}
	}
	if err := s.Backup(ctx, copies[0]); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("backup over an existing file: %v", err)
	}
}
