package sqlite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/omoide/omoide/episode"
)

// failFast collects the first errors of concurrent goroutines and tells
// them all to stop at the first.
type failFast struct {
	stop atomic.Bool
	mu   sync.Mutex
	errs []error
}

func (f *failFast) report(err error) {
	f.mu.Lock()
	if len(f.errs) < 64 {
		f.errs = append(f.errs, err)
	}
	f.mu.Unlock()
	f.stop.Store(true)
}

// fail reports the collected errors to t, once every goroutine is done, and
// whether there were any.
func (f *failFast) fail(t *testing.T) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, err := range f.errs {
		t.Error(err)
	}
	return len(f.errs) > 0
}

// TestUpdateExportBackupBesideReaders runs searches on 4 goroutines while
// one updates episodes in place, one exports a person and one takes
// backups: no error ("database is locked" included), every search result
// is the searcher's, every export is whole JSON Lines of the person's
// episodes, and after, the store and each backup pass Check.
func TestUpdateExportBackupBesideReaders(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, filepath.Join(dir, "x.db"), Options{IndexMin: 8})
	const people, per = 3, 20
	var eps []episode.Episode
	for u := range people {
		for i := range per {
			e := ep(fmt.Sprintf("u%d", u), fmt.Sprintf("ラーメンの話 %d-%d", u, i), "いいね", day)
			e.ExternalID = fmt.Sprintf("e%d", i)
			eps = append(eps, e)
		}
	}
	if _, err := s.Add(ctx, eps); err != nil {
		t.Fatal(err)
	}
	var ff failFast
	stop, report := &ff.stop, ff.report
	vec, err := s.Embedder().Embed(ctx, []string{"ラーメンの話"})
	if err != nil {
		t.Fatal(err)
	}
	var readers, writers sync.WaitGroup
	for r := range 4 {
		readers.Go(func() {
			user := fmt.Sprintf("u%d", r%people)
			for !stop.Load() {
				hits, err := s.Nearest(ctx, user, vec, 10, episode.SearchFilter{})
				if err != nil {
					report(fmt.Errorf("nearest: %w", err))
					return
				}
				bm, err := s.BM25(ctx, user, []string{"ラーメン"}, 10, episode.SearchFilter{})
				if err != nil {
					report(fmt.Errorf("bm25: %w", err))
					return
				}
				var ids []int64
				for _, h := range append(hits[0], bm...) {
					ids = append(ids, h.ID)
				}
				got, err := s.GetMany(ctx, ids)
				if err != nil {
					report(fmt.Errorf("get: %w", err))
					return
				}
				for _, e := range got {
					if e.User != user {
						report(fmt.Errorf("%s's search returned %s's episode", user, e.User))
						return
					}
				}
			}
		})
	}
	writers.Go(func() { // updates: each round rewrites u0's texts
		for round := range 15 {
			batch := make([]episode.Episode, per)
			for i := range batch {
				batch[i] = ep("u0", fmt.Sprintf("ラーメンの話 改訂%d-%d", round, i), "いいね", day)
				batch[i].ExternalID = fmt.Sprintf("e%d", i)
			}
			if _, err := s.Update(ctx, batch); err != nil {
				report(fmt.Errorf("update: %w", err))
				return
			}
		}
	})
	writers.Go(func() { // exports of u0 while it is rewritten
		for range 15 {
			var b bytes.Buffer
			n, err := s.Export(ctx, "u0", &b)
			if err != nil {
				report(fmt.Errorf("export: %w", err))
				return
			}
			lines := 0
			sc := bufio.NewScanner(&b)
			for sc.Scan() {
				var r episode.Record
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.User != "u0" {
					report(fmt.Errorf("export line %q: %v", sc.Text(), err))
					return
				}
				lines++
			}
			if lines != n || n != per {
				report(fmt.Errorf("export wrote %d lines, said %d, want %d", lines, n, per))
				return
			}
		}
	})
	var backups []string
	writers.Go(func() {
		for i := range 3 {
			p := filepath.Join(dir, fmt.Sprintf("b%d.db", i))
			if err := s.Backup(ctx, p); err != nil {
				report(fmt.Errorf("backup: %w", err))
				return
			}
			backups = append(backups, p)
		}
	})
	writers.Wait()
	stop.Store(true)
	readers.Wait()
	if ff.fail(t) {
		return
	}
	for _, p := range append([]string{s.Path()}, backups...) {
		c := s
		if p != s.Path() {
			c = openStore(t, p, Options{ReadOnly: true})
		}
		r, err := c.Check(ctx)
		if err != nil || len(r.Problems) != 0 || r.Episodes != people*per {
			t.Errorf("%s: check %+v, %v", p, r, err)
		}
	}
}
