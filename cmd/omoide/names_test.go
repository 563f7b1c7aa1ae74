package main

import (
	"strings"
	"testing"
)

// TestNamesCommandLine: the name rule at the command line. A store holding
// names from before it (testdata/stores/legacy-names.db, made by bfcc12a):
// check names them and fails; export and forget reach them; ingest and
// retrieve refuse such a name for anything new, naming what is wrong.
func TestNamesCommandLine(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	db := testStore(t, dir, "legacy-names.db")
	code, out, errOut := runCLI(t, "check", "-db", db)
	if code != 1 || !strings.Contains(errOut, "7 people have names the name rule refuses") {
		t.Errorf("check: exit %d, %s", code, errOut)
	}
	for _, want := range []string{`name       "..": ".." is a path's dot segment`, `name       "mika ": "mika " ends with white space`, `name       "line/U1": "line/U1" holds a path separator`, `"tab\there": holds the control character U+0009`} {
		if !strings.Contains(out, want) {
			t.Errorf("check does not name %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"mika":`) {
		t.Errorf("check names mika, whose name is good:\n%s", out)
	}
	if out := mustRun(t, "export", "-db", db, "-user", ".."); !strings.Contains(out, `..の秘密`) {
		t.Errorf("export -user ..: %s", out)
	}
	if out := mustRun(t, "forget", "-db", db, "-user", "line/U1"); !strings.Contains(out, `forgot "line/U1": 1 episodes removed`) {
		t.Errorf("forget -user line/U1: %s", out)
	}
	if out := mustRun(t, "export", "-db", db, "-user", "line/U1"); strings.Contains(out, "line/U1の秘密") {
		t.Errorf("line/U1 exported after the forget: %s", out)
	}
	if out := mustRun(t, "export", "-db", db, "-user", "mika"); !strings.Contains(out, "mikaの秘密") {
		t.Errorf("mika lost her episode to the forget of line/U1: %s", out)
	}
	line := `{"id":"n1","user":"mika ","user_text":"新しい話","occurred_at":"2026-03-02T10:00:00Z"}` + "\n"
	if code, _, errOut := runCLI(t, "ingest", "-db", db, writeFile(t, dir, "new.jsonl", line)); code != 1 || !strings.Contains(errOut, `new.jsonl:1: user "mika " ends with white space`) {
		t.Errorf("ingest for \"mika \": exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "retrieve", "-db", db, "-user", "..", "秘密"); code != 1 || !strings.Contains(errOut, `user ".." is a path's dot segment`) {
		t.Errorf("retrieve -user ..: exit %d %s", code, errOut)
	}
}
