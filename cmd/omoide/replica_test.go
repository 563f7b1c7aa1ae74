package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superfly/ltx"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
)

// replicaHolds reports which files under the roots hold any of secrets in
// their pages: the LTX files Litestream writes (LZ4-compressed pages,
// decoded here), and any other file as it is.
func replicaHolds(t *testing.T, secrets []string, roots ...string) []string {
	t.Helper()
	var hits []string
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			var content []byte
			if strings.HasSuffix(p, ".ltx") {
				content = ltxPages(t, p)
			} else if b, err := os.ReadFile(p); err == nil {
				content = b
			}
			for _, s := range secrets {
				if bytes.Contains(content, []byte(s)) {
					hits = append(hits, fmt.Sprintf("%s holds %q", p, s))
				}
			}
			return nil
		})
	}
	return hits
}

// ltxPages returns the decoded pages of an LTX file; a file Litestream is
// still writing or has just removed gives what could be read.
func ltxPages(t *testing.T, path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	dec := ltx.NewDecoder(f)
	if err := dec.DecodeHeader(); err != nil {
		return nil
	}
	var out bytes.Buffer
	data := make([]byte, dec.Header().PageSize)
	for {
		var hdr ltx.PageHeader
		if err := dec.DecodePage(&hdr, data); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Logf("%s: %v", path, err)
			}
			return out.Bytes()
		}
		out.Write(data)
	}
}

// TestReplicaForgets: with a short snapshot retention, a person forgotten in
// the store leaves every file of its Litestream replica (and of Litestream's
// local copies beside the store) within the retention and three snapshot
// intervals: docs/scale-out.md's bound, here with 2 s intervals and a 3 s
// retention for deploy/litestream.yml's 1 h and 24 h.
func TestReplicaForgets(t *testing.T) {
	tools := os.Getenv(envClusterTools)
	if tools == "" {
		t.Skip(envClusterTools + " is not set: run make test (make tools builds Litestream)")
	}
	clearEnv(t)
	ctx := context.Background()
	dir := t.TempDir()
	db, replica := filepath.Join(dir, "memory.db"), filepath.Join(dir, "replica")
	store, err := sqlite.Open(ctx, db, sqlite.Options{Embedder: omoide.DefaultEmbedder(), CheckpointWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	secrets := []string{"zoltanqx", "quixotrel"}
	var eps []episode.Episode
	for i := range 20 {
		eps = append(eps,
			episode.Episode{User: "zoltanqx", UserText: fmt.Sprintf("秘密の合言葉はquixotrel%d", i), OccurredAt: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)},
			episode.Episode{User: "bob", UserText: fmt.Sprintf("公園を散歩した%d", i), OccurredAt: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)})
	}
	if _, err := store.Add(ctx, eps); err != nil {
		t.Fatal(err)
	}
	const interval, retention = 2 * time.Second, 3 * time.Second
	// The compaction levels are shortened as the snapshots are: a level's
	// newest file is kept until its next compaction (deploy/litestream.yml's
	// defaults: 30 s, 5 min and 1 h, within its snapshot interval).
	yml := fmt.Sprintf(`snapshot:
  interval: %s
  retention: %s
levels:
  - interval: 500ms
  - interval: 1s
l0-retention: 1s
l0-retention-check-interval: 500ms
dbs:
  - path: %s
    monitor-interval: 100ms
    replicas:
      - url: file://%s
        sync-interval: 500ms
`, interval, retention, db, replica)
	cfg := filepath.Join(dir, "litestream.yml")
	if err := os.WriteFile(cfg, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, dir: dir}
	ls := c.start("litestream", exec.Command(filepath.Join(tools, "litestream"), "replicate", "-config", cfg))
	defer func() { ls.Process.Kill(); ls.Wait() }()
	local := filepath.Join(dir, ".memory.db-litestream")
	waitFor := func(what string, limit time.Duration, ok func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for time.Since(start) < limit {
			if ok() {
				return time.Since(start)
			}
			time.Sleep(200 * time.Millisecond)
		}
		log, _ := os.ReadFile(filepath.Join(dir, "litestream.log"))
		t.Fatalf("%s: not within %s\n%s\nlitestream:\n%s", what, limit, strings.Join(replicaHolds(t, secrets, replica, local), "\n"), log)
		return 0
	}
	// A snapshot and a compacted level hold the person before the forget:
	// else the test would prove nothing.
	waitFor("a snapshot and level 1 of the replica hold the person", 30*time.Second, func() bool {
		return len(replicaHolds(t, secrets, filepath.Join(replica, "ltx", "9"))) > 0 && len(replicaHolds(t, secrets, filepath.Join(replica, "ltx", "1"))) > 0
	})
	if _, err := store.Forget(ctx, "zoltanqx"); err != nil {
		t.Fatal(err)
	}
	forgot := time.Now()
	// Others go on writing, as a node's people do.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
				store.Add(ctx, []episode.Episode{{User: "bob", UserText: fmt.Sprintf("また散歩した%d", i), OccurredAt: time.Now()}})
			}
		}
	}()
	// The first snapshot after the forget comes within an interval; it is
	// dropped, with every file before it, at the first check (each interval)
	// after it is older than the retention; an interval for the timing.
	bound := retention + 3*interval
	took := waitFor("no replica file holds the forgotten person", 2*bound, func() bool {
		return len(replicaHolds(t, secrets, replica, local)) == 0
	})
	if _, err := os.Stat(local); err != nil {
		t.Errorf("Litestream's local files %s: %v; that none holds the person proves nothing", local, err)
	}
	t.Logf("the forgotten person left the replica %s after the forget (bound: retention %s + 3 x snapshot interval %s = %s)",
		time.Since(forgot).Round(100*time.Millisecond), retention, interval, bound)
	if took > bound+2*time.Second { // two seconds for a loaded machine
		t.Errorf("the person left the replica %s after the forget, beyond the bound %s", took.Round(100*time.Millisecond), bound)
	}
	// The others are still in it: a restore of the replica has bob.
	restored := filepath.Join(dir, "restored.db")
	if out, err := exec.Command(filepath.Join(tools, "litestream"), "restore", "-o", restored, "file://"+replica).CombinedOutput(); err != nil {
		t.Fatalf("litestream restore: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(restored)
	if !bytes.Contains(b, []byte("公園を散歩した7")) || bytes.Contains(b, []byte("quixotrel")) {
		t.Error("the restored replica lost bob, or holds the forgotten person")
	}
}
