package main

import (
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestRestoreWhileServed: while "omoide serve" holds the store, restore,
// reembed and reindex -analyzer exit 1 naming the server's process and
// command line, and the store is the server's still: a write it accepts
// afterwards is in the file. Once the server is killed, its hold goes with
// it and the restore goes through.
func TestRestoreWhileServed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts omoide serve")
	}
	db, _ := newTestStore(t)
	dir := t.TempDir()
	bak := filepath.Join(dir, "backup.db")
	mustRun(t, "backup", "-db", db, "-o", bak)

	serve, addr := serveProcess(t, "-db", db)
	holder := "held by process " + strconv.Itoa(serve.Process.Pid) + " ("
	for _, args := range [][]string{
		{"restore", "-db", db, "-from", bak},
		{"reembed", "-db", db, "-dim", "64"},
		{"reindex", "-db", db, "-analyzer", "bigram"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, holder) || !strings.Contains(errOut, " serve -db "+db) {
			t.Errorf("omoide %s while served: exit %d, stdout %q, stderr %q; want exit 1 naming %q and its command", strings.Join(args, " "), code, out, errOut, holder)
		}
	}
	// The store is still the server's: what it accepts lands in the file.
	resp, err := http.Post("http://"+addr+"/v1/episodes", "application/json",
		strings.NewReader(`[{"user":"haruka","id":"haruka:after","user_text":"復元のあとも覚えていてね","reply_text":"うん"}]`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST after the refusals: %s", resp.Status)
	}
	serve.Process.Signal(syscall.SIGKILL)
	serve.Wait()
	if out := mustRun(t, "export", "-db", db, "-user", "haruka"); !strings.Contains(out, "haruka:after") {
		t.Errorf("the write the server accepted after the refusals is not in the store:\n%s", out)
	}
	if out := mustRun(t, "restore", "-db", db, "-from", bak); !strings.Contains(out, "5 episodes of 2 people") {
		t.Errorf("restore once the server is gone: %q", out)
	}
}
