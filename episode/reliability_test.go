package episode

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestCheckAndReindex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openStore(t, path, Options{})
	ids, err := s.Add(ctx, []Episode{ep("a", "ラーメン", "", day), ep("a", "カレー", "", day), ep("b", "うどん", "", day)})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Check(ctx, path); err != nil || len(r.Problems) != 0 {
		t.Fatalf("healthy store: %v, %v", r.Problems, err)
	}
	// Break it behind the store's back: lose an FTS row and a vector, add an orphan vector.
	for _, q := range []string{
		fmt.Sprintf(`DELETE FROM episodes_fts WHERE rowid = %d`, ids[0]),
		fmt.Sprintf(`DELETE FROM episodes_vec WHERE episode_id = %d`, ids[1]),
		`DELETE FROM episodes WHERE id = ` + strconv.FormatInt(ids[2], 10),
	} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.Check(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.MissingFTS) != 1 || r.MissingFTS[0] != ids[0] || len(r.MissingVector) != 1 || r.MissingVector[0] != ids[1] ||
		len(r.OrphanFTS) != 1 || len(r.OrphanVector) != 1 || len(r.Problems) != 4 {
		t.Fatalf("check report = %+v", r)
	}
	n, err := s.Reindex(ctx, nil)
	if err != nil || n != 2 {
		t.Fatalf("Reindex = %d, %v", n, err)
	}
	if r, err := s.Check(ctx, path); err != nil || len(r.Problems) != 0 {
		t.Fatalf("after reindex: %v, %v", r.Problems, err)
	}
	hits, _ := s.BM25(ctx, "a", `"ラーメン"`, 5, Filter{})
	if len(hits) != 1 || hits[0].ID != ids[0] {
		t.Fatalf("BM25 after reindex = %+v", hits)
	}
}

// TestConcurrentReadersWritersDeleter runs 16 goroutines searching while 4
// ingest and 1 deletes, then checks that nothing was lost, duplicated or left
// half-written.
func TestConcurrentReadersWritersDeleter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openStore(t, path, Options{})
	const writers, batches, batchSize, readers = 4, 40, 5, 16
	var added, deleted, searches atomic.Int64
	var stop atomic.Bool
	errs := make(chan error, 100)
	var wg, readersWG sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				batch := make([]Episode, batchSize)
				for i := range batch {
					batch[i] = Episode{User: fmt.Sprintf("user%d", (w+i)%3), ExternalID: fmt.Sprintf("w%d-b%d-i%d", w, b, i),
						UserText: fmt.Sprintf("書き手%dの話%d ラーメン", w, b), ReplyText: "いいね", OccurredAt: day.Add(time.Duration(b) * time.Minute)}
				}
				if _, err := s.Add(ctx, batch); err != nil {
					errs <- fmt.Errorf("add: %w", err)
					return
				}
				added.Add(batchSize)
			}
		})
	}
	wg.Go(func() { // the deleter
		r := rand.New(rand.NewPCG(1, 2))
		for !stop.Load() {
			var ids []int64
			rows, err := s.db.Query(`SELECT id FROM episodes ORDER BY random() LIMIT 2`)
			if err != nil {
				errs <- err
				return
			}
			for rows.Next() {
				var id int64
				rows.Scan(&id)
				ids = append(ids, id)
			}
			rows.Close()
			if len(ids) > 0 && r.IntN(2) == 0 {
				n, err := s.Delete(ctx, ids...)
				if err != nil {
					errs <- fmt.Errorf("delete: %w", err)
					return
				}
				deleted.Add(int64(n))
			}
			time.Sleep(time.Millisecond)
		}
	})
	vec, _ := s.Embedder().Embed(ctx, []string{"ラーメン"})
	for r := range readers {
		readersWG.Go(func() {
			user := fmt.Sprintf("user%d", r%3)
			for !stop.Load() {
				knn, err := s.KNN(ctx, user, vec[0], 20, Filter{})
				if err == nil {
					_, err = s.BM25(ctx, user, `"ラーメン"`, 20, Filter{})
				}
				if err == nil {
					_, err = s.GetMany(ctx, ids(knn))
				}
				if err != nil {
					errs <- fmt.Errorf("search: %w", err)
					return
				}
				searches.Add(1)
			}
		})
	}
	// Writers finish, then the readers and deleter are stopped.
	done := make(chan struct{})
	go func() {
		for added.Load() < writers*batches*batchSize && len(errs) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		stop.Store(true)
		close(done)
	}()
	<-done
	wg.Wait()
	readersWG.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r, err := s.Check(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	want := int(added.Load() - deleted.Load())
	if len(r.Problems) != 0 || r.Episodes != want || r.FTSRows != want || r.VectorRows != want {
		t.Fatalf("after %d adds, %d deletes, %d searches: %+v", added.Load(), deleted.Load(), searches.Load(), r)
	}
	t.Logf("%d episodes added, %d deleted, %d searches, tables agree", added.Load(), deleted.Load(), searches.Load())
}

func ids(hits []Hit) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

const crashBatch = 40

// TestCrashChild is the child of TestCrashDuringIngest: it ingests batches
// until it is killed, printing each committed batch.
func TestCrashChild(t *testing.T) {
	path := os.Getenv("OMOIDE_CRASH_DB")
	if path == "" {
		t.Skip("run by TestCrashDuringIngest")
	}
	s := openStore(t, path, Options{})
	for b := 0; ; b++ {
		batch := make([]Episode, crashBatch)
		for i := range batch {
			batch[i] = ep("u", fmt.Sprintf("バッチ%dの%d番目 %s", b, i, strings.Repeat("長い文章。", 20)), "返事", day)
		}
		if _, err := s.Add(ctx, batch); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("committed %d\n", b+1)
	}
}

// TestCrashDuringIngest kills a child process with SIGKILL in the middle of a
// batch ingest, several times over the same store, and checks after each kill
// that every committed batch is whole in all three tables and no part of an
// uncommitted one is visible.
func TestCrashDuringIngest(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	committed := 0
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
		cmd.Env = append(os.Environ(), "OMOIDE_CRASH_DB="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		seen := 0
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "committed ") {
				seen++
				if seen == 3+round { // kill while the next batch is being written
					cmd.Process.Signal(syscall.SIGKILL)
					break
				}
			}
		}
		cmd.Wait()
		committed += seen

		s := openStore(t, path, Options{})
		r, err := s.Check(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Problems) != 0 || r.Episodes%crashBatch != 0 || r.Episodes < committed*crashBatch {
			t.Fatalf("round %d: after %d committed batches: %+v", round, committed, r)
		}
		committed = r.Episodes / crashBatch // a batch may commit between the print and the kill
		s.Close()
	}
}
