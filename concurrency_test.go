package omoide_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
)

// TestConcurrentRetrieveIngestDelete runs the whole pipeline concurrently
// through the Memory API: 16 goroutines retrieving (Evidence, with the
// candidate list) while 4 ingest and 1 deletes, until the writers are done.
// Every call must succeed ("database is locked" included) and every hit,
// candidate and rendered section must be the asking person's own; after,
// the store must hold exactly the episodes added minus those deleted, with
// the three tables in agreement. (episode's TestConcurrentReadersWritersDeleter
// does the same at the store's level, with more operations.)
func TestConcurrentRetrieveIngestDelete(t *testing.T) {
	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "c.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	const writers, batches, batchSize, readers, users = 4, 25, 4, 16, 5
	now := time.Date(2025, 12, 1, 12, 0, 0, 0, time.UTC)
	var stop atomic.Bool
	var retrievals, hits, deleteCalls atomic.Int64
	errs := make(chan error, 64)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
		stop.Store(true)
	}
	var mu sync.Mutex
	added, deleted := map[string]bool{}, map[string]bool{} // by user/external id
	var writersLeft atomic.Int64
	writersLeft.Store(writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			defer writersLeft.Add(-1)
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for b := range batches {
				if stop.Load() {
					return
				}
				batch := make([]episode.Episode, batchSize)
				for i := range batch {
					u := r.IntN(users)
					batch[i] = episode.Episode{User: fmt.Sprintf("user%d", u), ExternalID: fmt.Sprintf("w%d-b%d-i%d", w, b, i),
						UserText: isoText(r, 3+r.IntN(4)), ReplyText: isoText(r, 2) + " " + isoSecret(u),
						OccurredAt: now.Add(-time.Duration(1+r.IntN(2000)) * time.Hour)}
				}
				if _, err := mem.Add(ctx, batch...); err != nil {
					report(fmt.Errorf("add: %w", err))
					return
				}
				mu.Lock()
				for _, e := range batch {
					added[e.User+"/"+e.ExternalID] = true
				}
				mu.Unlock()
			}
		})
	}
	wg.Go(func() { // the deleter: one of the last 50 episodes now and then
		r := rand.New(rand.NewPCG(9, 9))
		for writersLeft.Load() > 0 && !stop.Load() {
			var id int64
			var key string
			err := mem.Store.DB().QueryRow(`SELECT id, user || '/' || external_id FROM episodes
				WHERE id > (SELECT max(id) - 50 FROM episodes) ORDER BY random() LIMIT 1`).Scan(&id, &key)
			if err == nil && r.IntN(3) == 0 {
				d, derr := mem.Store.Delete(ctx, id)
				if err = derr; err == nil && len(d.Episodes) != 1 {
					err = fmt.Errorf("Delete(%d) = %+v", id, d)
				}
				if err == nil {
					deleteCalls.Add(1)
					mu.Lock()
					deleted[key] = true
					mu.Unlock()
				}
			}
			if err != nil && !strings.Contains(err.Error(), "no rows") {
				report(fmt.Errorf("delete: %w", err))
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	})
	for g := range readers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 2))
			for writersLeft.Load() > 0 && !stop.Load() {
				u := r.IntN(users)
				user := fmt.Sprintf("user%d", u)
				req := retriever.Request{User: user, Text: isoText(r, 1+r.IntN(3)), Now: now, WithCandidates: true}
				if r.IntN(2) == 0 {
					req.Recent = []retriever.Message{{Role: "user", Content: isoText(r, 3)}}
				}
				section, res, err := mem.Evidence(ctx, req)
				if err != nil {
					report(fmt.Errorf("retrieve for %s: %w", user, err))
					return
				}
				for _, list := range [][]retriever.Hit{res.Hits, res.Candidates} {
					for _, h := range list {
						hits.Add(1)
						if h.Episode.User != user {
							report(fmt.Errorf("retrieval for %s returned episode %d of %s", user, h.Episode.ID, h.Episode.User))
							return
						}
					}
				}
				for o := range users {
					if o != u && strings.Contains(section, isoSecret(o)) {
						report(fmt.Errorf("evidence for %s holds user%d's word", user, o))
						return
					}
				}
				retrievals.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	rep, err := mem.Store.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := len(added) - len(deleted)
	if len(rep.Problems) != 0 || rep.Episodes != want || rep.FTSRows != want || rep.VectorRows != want {
		t.Fatalf("after %d added and %d deleted: %+v", len(added), len(deleted), rep)
	}
	for key := range added {
		user, ext, _ := strings.Cut(key, "/")
		id, err := mem.Store.IDByExternal(ctx, user, ext)
		if err != nil || (id == 0) != deleted[key] {
			t.Fatalf("episode %s: id %d, %v (deleted: %v)", key, id, err, deleted[key])
		}
	}
	if retrievals.Load() < readers {
		t.Fatalf("only %d retrievals ran while the writers wrote", retrievals.Load())
	}
	t.Logf("%d retrievals by 16 goroutines (%d hits and candidates checked) while 4 added %d episodes in %d batches and 1 deleted %d; %d episodes left, tables agree",
		retrievals.Load(), hits.Load(), len(added), writers*batches, deleteCalls.Load(), want)
}
