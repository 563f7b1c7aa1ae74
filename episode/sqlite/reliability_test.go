package sqlite

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
)

func TestCheckAndReindex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openStore(t, path, Options{})
	ids, err := s.Add(ctx, []episode.Episode{ep("a", "ラーメン", "", day), ep("a", "カレー", "", day), ep("b", "うどん", "", day)})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Check(ctx); err != nil || len(r.Problems) != 0 {
		t.Fatalf("healthy store: %v, %v", r.Problems, err)
	}
	// Break it behind the store's back: lose an FTS row, a vector and a
	// quantized vector, leave an orphan FTS row and vector, miscount a person.
	for _, q := range []string{
		fmt.Sprintf(`DELETE FROM episodes_fts WHERE rowid = %d`, ids[0]),
		fmt.Sprintf(`DELETE FROM episodes_vec WHERE episode_id = %d`, ids[1]),
		fmt.Sprintf(`UPDATE episodes SET vq = NULL WHERE id = %d`, ids[0]),
		`DELETE FROM episodes WHERE id = ` + strconv.FormatInt(ids[2], 10),
		`UPDATE partitions SET episodes = 5 WHERE user = 'a'`,
	} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.MissingFTS) != 1 || r.MissingFTS[0] != ids[0] || len(r.MissingVector) != 1 || r.MissingVector[0] != ids[1] ||
		len(r.MissingQuantized) != 1 || r.MissingQuantized[0] != ids[0] ||
		len(r.OrphanFTS) != 1 || len(r.OrphanVector) != 1 || len(r.Problems) != 6 ||
		!strings.Contains(r.Problems[5], "1 people whose episode count") {
		t.Fatalf("check report = %+v", r)
	}
	n, err := s.Reindex(ctx, nil)
	if err != nil || n != 2 {
		t.Fatalf("Reindex = %d, %v", n, err)
	}
	if r, err := s.Check(ctx); err != nil || len(r.Problems) != 0 {
		t.Fatalf("after reindex: %v, %v", r.Problems, err)
	}
	hits, _ := s.BM25(ctx, "a", []string{"ラーメン"}, 5, episode.SearchFilter{})
	if len(hits) != 1 || hits[0].ID != ids[0] {
		t.Fatalf("BM25 after reindex = %+v", hits)
	}
}

// TestCheckIdentity checks that Check compares the identity the store
// records with the embedder and analyzer it is open with, and the dimension
// of the vector table with both; and that Reindex repairs a vector table of
// the wrong dimension.
func TestCheckIdentity(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openStore(t, path, Options{Embedder: hashEmbedder(t, 64)})
	if _, err := s.Add(ctx, []episode.Episode{ep("a", "ラーメン", "", day), ep("b", "うどん", "", day)}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Check(ctx)
	if err != nil || len(r.Problems) != 0 || r.Recorded.Embedder != s.Embedder().Identity() || r.VectorDim != 64 ||
		r.Recorded.Analyzer != s.Analyzer().Name() || r.Recorded.SchemaVersion != SchemaVersion {
		t.Fatalf("healthy store: %+v, %v", r, err)
	}
	// The identity changed behind the open store's back.
	for _, tc := range []struct{ sql, want string }{
		{`UPDATE meta SET value = 'other-embedder' WHERE key = 'embedder_name'`, "records embedder other-embedder/64, but is open with hash-"},
		{`UPDATE meta SET value = '' WHERE key = 'embedder_name'`, `embedder identity not recorded (name "", dimension "64")`},
		{`UPDATE meta SET value = 'x' WHERE key = 'embedder_dim'`, `embedder identity not recorded (name "hash-`},
		{`UPDATE meta SET value = 'bigram' WHERE key = 'analyzer'`, `records analyzer "bigram", but is open with "cjk`},
	} {
		if _, err := s.db.Exec(tc.sql); err != nil {
			t.Fatal(err)
		}
		r, err := s.Check(ctx)
		if err != nil || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], tc.want) {
			t.Errorf("after %s: problems %q, %v; want %q", tc.sql, r.Problems, err, tc.want)
		}
		for k, v := range map[string]string{"embedder_name": s.Embedder().Identity().Name, "embedder_dim": "64", "analyzer": s.Analyzer().Name()} {
			if _, err := s.db.Exec(`UPDATE meta SET value = ? WHERE key = ?`, v, k); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.Close()

	// A store whose meta says 32 dimensions over a 64-dimension vector table
	// (as a half-done manual repair could leave it): it opens with the
	// recorded 32, and Check finds the table and the quantized vectors wrong.
	s = openStore(t, path, Options{Embedder: hashEmbedder(t, 64)})
	if _, err := s.db.Exec(`UPDATE meta SET value = '32' WHERE key = 'embedder_dim'`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openStore(t, path, Options{Embedder: hashEmbedder(t, 32)})
	r, err = s.Check(ctx)
	if err != nil || r.VectorDim != 64 || len(r.MissingQuantized) != 2 || len(r.Problems) != 2 ||
		!strings.Contains(r.Problems[0], "the vector table holds 64-dimension vectors, the embedder hash-") {
		t.Fatalf("check of a 64-dimension table recorded as 32: %+v, %v", r, err)
	}
	if n, err := s.Reindex(ctx, nil); err != nil || n != 2 {
		t.Fatalf("Reindex = %d, %v", n, err)
	}
	if r, err := s.Check(ctx); err != nil || len(r.Problems) != 0 || r.VectorDim != 32 {
		t.Fatalf("after reindex: %+v, %v", r, err)
	}
}

// TestIDsNeverReused deletes the last episode, which SQLite would otherwise
// give the id of to the next one, across a reopen too: an id found by a
// search for one person must never name another person's episode later.
func TestIDsNeverReused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openStore(t, path, Options{})
	seen := map[int64]bool{}
	for round := range 3 {
		ids, err := s.Add(ctx, []episode.Episode{ep("a", "ラーメン", "", day), ep("a", "カレー", "", day)})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("round %d: id %d given again", round, id)
			}
			seen[id] = true
		}
		if _, err := s.Forget(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if round == 1 {
			s.Close()
			s = openStore(t, path, Options{})
		}
	}
	ids, err := s.Add(ctx, []episode.Episode{ep("b", "ラーメン", "", day)})
	if err != nil || seen[ids[0]] {
		t.Fatalf("b's episode got id %v (%v); ids given before: %v", ids, err, seen)
	}
	if r, err := s.Check(ctx); err != nil || len(r.Problems) != 0 {
		t.Fatalf("check: %v, %v", r.Problems, err)
	}
}

// TestConcurrentReadersWritersDeleter runs 16 goroutines searching (the
// in-memory index of Nearest, vec0's KNN, BM25, GetMany) while 4 ingest and 1
// deletes, and a 22nd checks, in one statement, that the three tables have
// as many rows at every instant (no half-written batch is visible). Every
// error fails the test ("database is locked" included); every search result
// must belong to the searcher's person. After, the stored ids must be
// exactly the ones added minus the ones deleted, each with its own text, in
// all three tables, and Nearest must see exactly each person's live
// episodes.
func TestConcurrentReadersWritersDeleter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	// IndexMin 8: every person's partition is searched in memory, so the
	// index is loaded, extended by Add and reloaded after deletes while
	// searched.
	s := openStore(t, path, Options{IndexMin: 8})
	const writers, batches, batchSize, readers, users = 4, 50, 5, 16, 3
	var searches, snapshots, deleteCalls atomic.Int64
	var ff failFast
	stop, report := &ff.stop, ff.report
	var mu sync.Mutex
	written := map[string]episode.Episode{} // by external id, as added, ID set
	deleted := map[string]bool{}
	given := map[int64]string{} // id -> external id: an id is never given twice
	var wg, readersWG sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				if stop.Load() {
					return
				}
				batch := make([]episode.Episode, batchSize)
				for i := range batch {
					batch[i] = episode.Episode{User: fmt.Sprintf("user%d", (w+b+i)%users), ExternalID: fmt.Sprintf("w%d-b%d-i%d", w, b, i),
						UserText: fmt.Sprintf("書き手%dの話%d-%d ラーメン", w, b, i), ReplyText: "いいね", OccurredAt: day.Add(time.Duration(b) * time.Minute)}
				}
				got, err := s.Add(ctx, batch)
				if err != nil {
					report(fmt.Errorf("add: %w", err))
					return
				}
				mu.Lock()
				for i, id := range got {
					if ext, ok := given[id]; ok {
						report(fmt.Errorf("id %d given to %s and to %s", id, ext, batch[i].ExternalID))
					}
					given[id] = batch[i].ExternalID
					batch[i].ID = id
					written[batch[i].ExternalID] = batch[i]
				}
				mu.Unlock()
			}
		})
	}
	wg.Go(func() { // the deleter
		r := rand.New(rand.NewPCG(1, 2))
		for !stop.Load() {
			var ids []int64
			var exts []string
			rows, err := s.db.Query(`SELECT id, external_id FROM episodes ORDER BY random() LIMIT 2`)
			if err != nil {
				report(err)
				return
			}
			for rows.Next() {
				var id int64
				var ext string
				rows.Scan(&id, &ext)
				ids, exts = append(ids, id), append(exts, ext)
			}
			rows.Close()
			if len(ids) > 0 && r.IntN(2) == 0 {
				d, err := s.Delete(ctx, ids...)
				if err != nil {
					report(fmt.Errorf("delete: %w", err))
					return
				}
				if len(d.Episodes) != len(ids) { // only this goroutine deletes
					report(fmt.Errorf("Delete(%v) = %+v", ids, d))
				}
				deleteCalls.Add(1)
				mu.Lock()
				for _, ext := range exts {
					deleted[ext] = true
				}
				mu.Unlock()
			}
			time.Sleep(time.Millisecond)
		}
	})
	vec, _ := s.Embedder().Embed(ctx, []string{"ラーメン"})
	for r := range readers {
		readersWG.Go(func() {
			user := fmt.Sprintf("user%d", r%users)
			for !stop.Load() {
				near, err := s.Nearest(ctx, user, vec, 20, episode.SearchFilter{})
				var knn, bm25 []episode.Match
				if err == nil {
					knn, err = s.knn(ctx, user, vec[0], 20, episode.SearchFilter{})
				}
				if err == nil {
					bm25, err = s.BM25(ctx, user, []string{"ラーメン"}, 20, episode.SearchFilter{})
				}
				var got []episode.Episode
				if err == nil {
					got, err = s.GetMany(ctx, slices.Concat(ids(near[0]), ids(knn), ids(bm25)))
				}
				if err != nil {
					report(fmt.Errorf("search: %w", err))
					return
				}
				for _, e := range got {
					if e.User != user || !strings.HasSuffix(e.UserText, " ラーメン") {
						report(fmt.Errorf("search for %s returned episode %d of %s: %q", user, e.ID, e.User, e.UserText))
						return
					}
				}
				searches.Add(1)
			}
		})
	}
	readersWG.Go(func() { // the snapshot checker
		for !stop.Load() {
			var e, f, v int
			if err := s.db.QueryRow(`SELECT (SELECT count(*) FROM episodes), (SELECT count(*) FROM episodes_fts),
				(SELECT count(*) FROM episodes_vec)`).Scan(&e, &f, &v); err != nil {
				report(fmt.Errorf("snapshot: %w", err))
				return
			}
			if e != f || e != v {
				report(fmt.Errorf("one snapshot holds %d episodes, %d FTS rows, %d vectors", e, f, v))
				return
			}
			snapshots.Add(1)
		}
	})
	// Writers finish, then the readers and deleter are stopped.
	for {
		mu.Lock()
		n := len(written)
		mu.Unlock()
		if n == writers*batches*batchSize || stop.Load() {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	readersWG.Wait()
	if ff.fail(t) {
		return
	}

	r, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := len(written) - len(deleted)
	if len(r.Problems) != 0 || r.Episodes != want || r.FTSRows != want || r.VectorRows != want {
		t.Fatalf("after %d adds, %d deletes: %+v", len(written), len(deleted), r)
	}
	// Exactly the live ids, each with its own episode.
	live := map[string][]int64{}
	for ext, e := range written {
		id, err := s.IDByExternal(ctx, e.User, ext)
		if err != nil {
			t.Fatal(err)
		}
		if deleted[ext] {
			if id != 0 {
				t.Fatalf("deleted episode %s is still there (id %d)", ext, id)
			}
			continue
		}
		got, err := s.Get(ctx, e.ID)
		if err != nil || id != e.ID || got.User != e.User || got.ExternalID != e.ExternalID || got.UserText != e.UserText {
			t.Fatalf("episode %d: got %+v (id by external id %d), %v; want %+v", e.ID, got, id, err, e)
		}
		live[e.User] = append(live[e.User], e.ID)
	}
	for user, want := range live {
		near, err := s.Nearest(ctx, user, vec, 1000, episode.SearchFilter{})
		if err != nil {
			t.Fatal(err)
		}
		got := ids(near[0])
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: Nearest finds %d episodes, %d are stored", user, len(got), len(want))
		}
	}
	ops := int64(writers*batches) + deleteCalls.Load() + 3*searches.Load() + snapshots.Load()
	t.Logf("%d operations: %d Add calls (%d episodes), %d Delete calls (%d episodes), %d searches of 16 readers (each Nearest+KNN+BM25+GetMany), %d snapshot checks; %d episodes left, tables agree",
		ops, writers*batches, len(written), deleteCalls.Load(), len(deleted), searches.Load(), snapshots.Load(), want)
}

func ids(hits []episode.Match) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

const crashBatch = 200

// crashText is the user text of episode i of batch b of round r: long
// enough that a batch fills many pages.
func crashText(r, b, i int) string {
	return fmt.Sprintf("ラウンド%dバッチ%dの%d番目 %s", r, b, i, strings.Repeat("駅前の味噌ラーメンを食べた話。", 8))
}

// TestCrashChild is the child of TestCrashDuringIngest: it ingests batches
// of crashBatch episodes until it is killed, printing "begin B" before each
// batch and "committed B" after its commit. With OMOIDE_CRASH_IN_TX=J it
// stops inside the transaction of its third batch, after the rows of
// episode J are written, prints "inside B" and waits to be killed; it runs
// on one connection with a page cache of 16 pages, so that the uncommitted
// pages spill into the WAL file before the kill.
func TestCrashChild(t *testing.T) {
	path := os.Getenv("OMOIDE_CRASH_DB")
	if path == "" {
		t.Skip("run by TestCrashDuringIngest")
	}
	round, _ := strconv.Atoi(os.Getenv("OMOIDE_CRASH_ROUND"))
	s := openStore(t, path, Options{})
	if j, err := strconv.Atoi(os.Getenv("OMOIDE_CRASH_IN_TX")); err == nil {
		s.db.SetMaxOpenConns(1)
		if _, err := s.db.Exec(`PRAGMA cache_size = 16`); err != nil {
			t.Fatal(err)
		}
		var b atomic.Int64
		testHookInTx = func(i int) {
			if b.Load() == 2 && i == j {
				fmt.Printf("inside %d\n", b.Load())
				select {} // until killed
			}
		}
		defer b.Store(-1)
		for ; ; b.Add(1) {
			crashBatchOf(t, s, round, int(b.Load()))
		}
	}
	for b := 0; ; b++ {
		crashBatchOf(t, s, round, b)
	}
}

func crashBatchOf(t *testing.T, s *Store, round, b int) {
	batch := make([]episode.Episode, crashBatch)
	for i := range batch {
		batch[i] = episode.Episode{User: fmt.Sprintf("u%d", i%3), ExternalID: fmt.Sprintf("r%d-b%d-i%d", round, b, i),
			UserText: crashText(round, b, i), ReplyText: "返事", OccurredAt: day}
	}
	fmt.Printf("begin %d\n", b)
	if _, err := s.Add(ctx, batch); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("committed %d\n", b)
}

// TestCrashDuringIngest kills a child process (TestCrashChild) with SIGKILL
// in the middle of a batch ingest, round after round over the same store:
// even rounds inside the transaction of a batch, with uncommitted pages
// already in the WAL file; odd rounds at a random moment (embedding,
// writing, committing or between batches). After each kill it reopens the
// store and checks that every batch the child reported committed is whole
// (every episode, its FTS row with the analyzed text, its vector and its
// quantized vector), that no part of an uncommitted batch is visible, and
// that Check finds nothing wrong. OMOIDE_CRASH_ROUNDS sets the number of
// rounds (default 6).
func TestCrashDuringIngest(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	rounds := 6
	if n, err := strconv.Atoi(os.Getenv("OMOIDE_CRASH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	rng := rand.New(rand.NewPCG(3, 9))
	spilled, inFlightCommitted := 0, 0
	for round := range rounds {
		inTx := round%2 == 0
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
		cmd.Env = append(os.Environ(), "OMOIDE_CRASH_DB="+path, fmt.Sprintf("OMOIDE_CRASH_ROUND=%d", round))
		if inTx {
			cmd.Env = append(cmd.Env, fmt.Sprintf("OMOIDE_CRASH_IN_TX=%d", 20+rng.IntN(crashBatch-20)))
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		walBefore := fileSize(path + "-wal")
		killAfter := 1 + rng.IntN(3) // random rounds: the batch in flight when it is killed
		sc := bufio.NewScanner(out)
		committed, began, inside := -1, -1, false
		for sc.Scan() {
			line := sc.Text()
			if b, ok := strings.CutPrefix(line, "committed "); ok {
				committed, _ = strconv.Atoi(b)
				walBefore = fileSize(path + "-wal")
			} else if b, ok := strings.CutPrefix(line, "begin "); ok {
				began, _ = strconv.Atoi(b)
				if !inTx && began == killAfter {
					// Somewhere in this batch: a few ms embed and analyze
					// it, then it is written and committed.
					time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
					cmd.Process.Signal(syscall.SIGKILL)
					break
				}
			} else if strings.HasPrefix(line, "inside ") {
				inside = true
				if fileSize(path+"-wal") > walBefore {
					spilled++
				}
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		cmd.Process.Signal(syscall.SIGKILL) // the child failed before: do not wait forever
		cmd.Wait()
		if inTx && !inside {
			t.Fatalf("round %d: the child never reached the transaction (committed %d)", round, committed)
		}
		if committed < 0 && !inTx && began < 0 {
			t.Fatalf("round %d: the child printed nothing", round)
		}
		present := checkCrashedStore(t, path, round)
		switch {
		case present < committed+1:
			t.Fatalf("round %d: %d batches committed, %d present", round, committed+1, present)
		case present == committed+2 && !inTx:
			inFlightCommitted++ // committed between the kill signal and the print
		case present != committed+1:
			t.Fatalf("round %d: %d batches committed, %d present (in transaction: %v)", round, committed+1, present, inTx)
		}
	}
	t.Logf("%d SIGKILLs survived (%d inside a transaction, %d of them with uncommitted pages in the WAL; %d at random moments, %d of which had committed the batch in flight); every committed batch whole, nothing of an uncommitted one visible",
		rounds, (rounds+1)/2, spilled, rounds/2, inFlightCommitted)
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// checkCrashedStore reopens the store after a kill and checks it: Check
// finds no problem, each batch of round is whole or absent (and the present
// ones are 0..n-1), each present episode has its text, the FTS row of its
// analyzed text, and a vector that finds it. It returns how many batches of
// round are present.
func checkCrashedStore(t *testing.T, path string, round int) int {
	t.Helper()
	s, err := Open(ctx, path, Options{Embedder: hashEmbedder(t, 64)})
	if err != nil {
		t.Fatalf("round %d: reopen: %v", round, err)
	}
	defer s.Close()
	r, err := s.Check(ctx)
	if err != nil || len(r.Problems) != 0 {
		t.Fatalf("round %d: check: %v, %v", round, r.Problems, err)
	}
	rows, err := s.db.Query(`SELECT e.id, e.external_id, e.user_text, f.user_text FROM episodes e JOIN episodes_fts f ON f.rowid = e.id
		WHERE e.external_id LIKE ?`, fmt.Sprintf("r%d-%%", round))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	perBatch := map[int]int{}
	var probe []int64 // one episode per batch
	for rows.Next() {
		var id int64
		var ext, text, fts string
		if err := rows.Scan(&id, &ext, &text, &fts); err != nil {
			t.Fatal(err)
		}
		var rr, b, i int
		if _, err := fmt.Sscanf(ext, "r%d-b%d-i%d", &rr, &b, &i); err != nil {
			t.Fatalf("external id %q: %v", ext, err)
		}
		if text != crashText(rr, b, i) || fts != s.Analyzer().Index(text) {
			t.Fatalf("round %d: episode %s: text or FTS row differ", round, ext)
		}
		perBatch[b]++
		if i == 0 {
			probe = append(probe, id)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for b := range len(perBatch) {
		if perBatch[b] != crashBatch {
			t.Fatalf("round %d: batch %d has %d of %d episodes (batches %v)", round, b, perBatch[b], crashBatch, perBatch)
		}
	}
	for _, id := range probe {
		e, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		vec, _ := s.Embedder().Embed(ctx, []string{e.EmbedText()})
		hits, err := s.knn(ctx, e.User, vec[0], 1, episode.SearchFilter{})
		if err != nil || len(hits) != 1 || hits[0].ID != id {
			t.Fatalf("round %d: episode %d's own vector finds %+v, %v", round, id, hits, err)
		}
	}
	return len(perBatch)
}
