package main

import (
	"net/http"
	"path/filepath"
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
	refusedWhileServed(t, serve, db, bak, " serve -db "+db)
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
