package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/omoide/omoide/cmd/internal/localcluster"
)

// serveProcess starts "omoide serve" with args as a process of its own (the
// test binary running omoide's main) and returns it and its address once it
// answers; it is killed when the test ends.
func serveProcess(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	addr, err := localcluster.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	serve := exec.Command(self, append(append([]string{"serve"}, args...), "-addr", addr, "-log-level", "warn")...)
	serve.Env = append(os.Environ(), envRunMain+"=1", envToken+"=")
	var log bytes.Buffer
	serve.Stdout, serve.Stderr = &log, &log
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
	if err := localcluster.WaitHTTP(nil, "http://"+addr+"/healthz", 30*time.Second); err != nil {
		t.Fatalf("serve: %v\n%s", err, log.String())
	}
	return serve, addr
}

// refusedWhileServed checks that restore (from bak), reembed and reindex
// -analyzer of the store db exit 1 while serve runs, naming its process and
// its command line (holding cmdline).
func refusedWhileServed(t *testing.T, serve *exec.Cmd, db, bak, cmdline string) {
	t.Helper()
	holder := "held by process " + strconv.Itoa(serve.Process.Pid) + " ("
	for _, args := range [][]string{
		{"restore", "-db", db, "-from", bak},
		{"reembed", "-db", db, "-dim", "64"},
		{"reindex", "-db", db, "-analyzer", "bigram"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, holder) || !strings.Contains(errOut, cmdline) {
			t.Errorf("omoide %s while served: exit %d, stdout %q, stderr %q; want exit 1 naming %q and %q", strings.Join(args, " "), code, out, errOut, holder, cmdline)
		}
	}
}

// exported returns the external ids the server at addr exports of user.
func exported(t *testing.T, addr, user string) []string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/v1/users/" + user + "/episodes")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Episodes []struct {
			ID string `json:"id"`
		} `json:"episodes"`
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET the episodes of %s: %s", user, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range page.Episodes {
		ids = append(ids, e.ID)
	}
	return ids
}

// TestRestoreWhileServedReadOnly: a read-only server holds the store as a
// writable one does. While "omoide serve -readonly" runs, restore, reembed
// and reindex -analyzer exit 1 naming its process and command line, and the
// store's file is as it was. A forget (a writer, which shares the store)
// then reaches what the server serves: its export of the person is empty
// (before, the restore went through, the server went on reading the
// replaced file, and exported every episode of the person the forget had
// removed from the new one). Once the server is gone, the restore goes
// through and forgets the person again.
func TestRestoreWhileServedReadOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts omoide serve")
	}
	db, _ := newTestStore(t)
	bak := filepath.Join(t.TempDir(), "backup.db")
	mustRun(t, "backup", "-db", db, "-o", bak)
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}

	serve, addr := serveProcess(t, "-readonly", "-db", db)
	if ids := exported(t, addr, "haruka"); len(ids) != 3 {
		t.Fatalf("the read-only server exports %v of haruka, want her 3 episodes", ids)
	}
	refusedWhileServed(t, serve, db, bak, " serve -readonly -db "+db)
	if after, err := os.ReadFile(db); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the refusals changed the store's file (%v)", err)
	}

	mustRun(t, "forget", "-db", db, "-user", "haruka")
	if ids := exported(t, addr, "haruka"); len(ids) != 0 {
		t.Errorf("after the forget the read-only server still exports %v of haruka", ids)
	}
	serve.Process.Signal(syscall.SIGTERM)
	serve.Wait()
	if out := mustRun(t, "restore", "-db", db, "-from", bak); !strings.Contains(out, "1 people forgotten again") {
		t.Errorf("restore once the server is gone: %q", out)
	}
	if out := mustRun(t, "export", "-db", db, "-user", "haruka"); out != "" {
		t.Errorf("haruka came back with the restore:\n%s", out)
	}
}

// TestMissingFolderCommandLine: a store, a restore or a backup in a folder
// that does not exist says so, naming the folder; before, a restore blamed
// the lock file ("lock: open missing/dir/x.db.lock: no such file or
// directory") and a backup SQLite ("unable to open database").
func TestMissingFolderCommandLine(t *testing.T) {
	db, jsonl := newTestStore(t)
	bak := filepath.Join(t.TempDir(), "backup.db")
	mustRun(t, "backup", "-db", db, "-o", bak)
	dir := filepath.Join(t.TempDir(), "missing", "dir")
	store := filepath.Join(dir, "x.db")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"restore", "-from", bak, "-db", store}, "omoide restore: episode store: restore " + bak + " to " + store + ": the folder " + dir + " does not exist (create it first)"},
		{[]string{"ingest", "-db", store, jsonl}, "omoide ingest: episode store: open " + store + ": the folder " + dir + " does not exist (create it first)"},
		{[]string{"backup", "-db", db, "-o", store}, "omoide backup: episode store: backup to " + store + ": the folder " + dir + " does not exist (create it first)"},
		{[]string{"reindex", "-db", store, "-analyzer", "bigram"}, "omoide reindex: episode store: reanalyze: " + store + ": no such store: the folder " + dir + " does not exist"},
		{[]string{"reembed", "-db", store, "-dim", "64"}, "omoide reembed: no store at " + store + ": the folder " + dir + " does not exist"},
		{[]string{"stats", "-readonly", "-db", store}, "omoide stats: no store at " + store + ": the folder " + dir + " does not exist"},
	} {
		code, _, errOut := runCLI(t, tt.args...)
		if code != 1 || !strings.Contains(errOut, tt.want) || strings.Contains(errOut, ".lock") {
			t.Errorf("omoide %s: exit %d, %q; want exit 1 and %q", strings.Join(tt.args, " "), code, errOut, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Dir(dir)); !os.IsNotExist(err) {
		t.Errorf("something made the missing folder: %v", err)
	}
}
