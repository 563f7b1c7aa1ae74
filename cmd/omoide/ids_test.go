package main

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testStore copies testdata/stores/NAME into dir and returns its path.
func testStore(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/stores", name))
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, name)
	if err := os.WriteFile(db, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestIDsCommandLine: the external id rule at the command line. A store
// holding ids from before it (testdata/stores/legacy-ids.db, made by
// 0333031): check names each with its store id and fails; export shows
// them; delete reaches them by store id and by external id; ingest refuses
// such an id for anything new, naming what is wrong.
func TestIDsCommandLine(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	db := testStore(t, dir, "legacy-ids.db")
	code, out, errOut := runCLI(t, "check", "-db", db)
	if code != 1 || !strings.Contains(errOut, "12 episodes have external ids the id rule refuses") {
		t.Errorf("check: exit %d, %s", code, errOut)
	}
	for _, want := range []string{
		`id         episode 2 (user "kenji"): external id ".." is a path's dot segment`,
		`id         episode 3 (user "kenji"): external id "%2e%2e" is a path's dot segment`,
		`id         episode 7 (user "kenji"): external id "x?y" holds '?'`,
		`id         episode 13 (user "はるか"): external id ".." is a path's dot segment`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check does not name %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"ok"`) || strings.Contains(out, `"h1"`) {
		t.Errorf("check names a good id:\n%s", out)
	}
	if out := mustRun(t, "export", "-db", db, "-user", "kenji"); !strings.Contains(out, `{"id":"..","user":"kenji"`) {
		t.Errorf("export -user kenji misses the episode with id \"..\": %s", out)
	}
	if out := mustRun(t, "delete", "-db", db, "-id", "2"); !strings.Contains(out, `deleted episode 2 (user "kenji", external id "..",`) {
		t.Errorf("delete -id 2: %s", out)
	}
	if out := mustRun(t, "delete", "-db", db, "-user", "はるか", "-external-id", ".."); !strings.Contains(out, `deleted episode 13 (user "はるか", external id "..",`) {
		t.Errorf("delete -user はるか -external-id ..: %s", out)
	}
	if out := mustRun(t, "export", "-db", db, "-user", "はるか"); !strings.Contains(out, `"id":"h1"`) || strings.Contains(out, `"id":".."`) {
		t.Errorf("はるか after deleting her \"..\": %s", out)
	}
	line := `{"id":"x#y","user":"mika","user_text":"新しい話","occurred_at":"2026-03-02T10:00:00Z"}` + "\n"
	if code, _, errOut := runCLI(t, "ingest", "-db", db, writeFile(t, dir, "new.jsonl", line)); code != 1 || !strings.Contains(errOut, `new.jsonl:1: external id "x#y" holds '#'`) {
		t.Errorf("ingest of id \"x#y\": exit %d %s", code, errOut)
	}
}

// TestServeBadAddressCreatesNoStore: serve checks its address before it
// opens a store: an address it cannot listen on (a port out of range, one
// in use) fails naming -addr, and no store file is left behind.
func TestServeBadAddressCreatesNoStore(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, addr := range []string{":99999", busy.Addr().String()} {
		db := filepath.Join(dir, "new.db")
		code, _, errOut := runCLI(t, "serve", "-db", db, "-addr", addr)
		if code != 1 || !strings.Contains(errOut, "-addr "+addr+": ") {
			t.Errorf("serve -addr %s: exit %d %q, want 1 naming -addr", addr, code, errOut)
		}
		if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("serve -addr %s left a store: %v", addr, err)
		}
	}
}
