package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestRun runs the program: the episode is found, and the zero options
// retrieve what the default options do.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "1 true\n"; got != want {
		t.Errorf("the program printed %q, want %q", got, want)
	}
}

// TestDocMirrorsProgram: every ```go block of docs/architecture.md is a run
// of this program's lines (leading tabs aside), so the code the page shows
// compiles, and a change to an API it shows fails here until the page
// follows.
func TestDocMirrorsProgram(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	trim := func(s string) []string {
		var out []string
		for line := range strings.Lines(s) {
			out = append(out, strings.TrimSpace(line))
		}
		return out
	}
	prog := strings.Join(trim(string(src)), "\n")
	const open, fence = "```go\n", "\n```"
	s, blocks := string(doc), 0
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		s = s[i+len(open):]
		j := strings.Index(s, fence)
		if j < 0 {
			t.Fatal("a ```go block of docs/architecture.md is not closed")
		}
		blocks++
		if block := strings.Join(trim(s[:j]), "\n"); !strings.Contains(prog, block) {
			t.Errorf("docs/architecture.md's ```go block %d is not in examples/architecture/main.go:\n%s", blocks, s[:j])
		}
		s = s[j+len(fence):]
	}
	if blocks == 0 {
		t.Error("docs/architecture.md shows no ```go block; this test has nothing to hold")
	}
}
