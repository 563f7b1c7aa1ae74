package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestRun runs the README's program and checks what it prints.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "1 true\n"; got != want {
		t.Errorf("the program printed %q, want %q", got, want)
	}
}

// TestReadmeMirrorsProgram: README.md's Go block is this directory's main.go,
// whole, line for line (trailing space aside), so a user can paste it as is.
func TestReadmeMirrorsProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	const open, fence = "```go\n", "\n```"
	s := string(readme)
	i := strings.Index(s, open)
	if i < 0 {
		t.Fatal("README.md has no ```go block")
	}
	s = s[i+len(open):]
	j := strings.Index(s, fence)
	if j < 0 {
		t.Fatal("README.md's ```go block is not closed")
	}
	if strings.Contains(s[j+len(fence):], open) {
		t.Error("README.md has more than one ```go block; this test reads the first")
	}
	norm := func(s string) []string {
		lines := strings.Split(strings.TrimRight(s, " \t\r\n"), "\n")
		for k, l := range lines {
			lines[k] = strings.TrimRight(l, " \t\r")
		}
		return lines
	}
	got, want := norm(s[:j]), norm(string(src))
	for k := 0; k < len(got) || k < len(want); k++ {
		var g, w string
		if k < len(got) {
			g = got[k]
		}
		if k < len(want) {
			w = want[k]
		}
		if g != w {
			t.Fatalf("README.md's Go block differs from examples/readme/main.go at line %d of the block:\nREADME:  %q\nmain.go: %q\n(copy main.go into the block whole)", k+1, g, w)
		}
	}
}
