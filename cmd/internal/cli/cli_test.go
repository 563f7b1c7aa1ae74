package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// testProgram has a command per outcome; "flags" takes -n and no arguments.
var testProgram = Program{Name: "prog", Noun: "mode", Commands: []Command{
	{Name: "ok", Summary: "succeeds", Run: func(context.Context, []string, io.Writer, io.Writer) error { return nil }},
	{Name: "fails", Summary: "fails", Run: func(context.Context, []string, io.Writer, io.Writer) error { return errors.New("broke") }},
	{Name: "flags", Summary: "parses -n", Run: func(_ context.Context, args []string, _, stderr io.Writer) error {
		fs := NewFlagSet("prog", "flags", stderr)
		fs.Int("n", 0, "a number")
		return Parse(fs, args)
	}},
	{Name: "misused", Summary: "a usage error", Run: func(context.Context, []string, io.Writer, io.Writer) error {
		return fmt.Errorf("%w: -x is wrong", ErrUsage)
	}},
}}

func TestProgramRun(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		status int
		stderr string
	}{
		{nil, 2, "usage: prog <mode> [flags]\n\nmodes:\n  ok       succeeds\n"},
		{[]string{"-help"}, 0, "\nRun \"prog <mode> -help\" (or \"prog help <mode>\") for a mode's flags.\n"},
		{[]string{"help", "flags"}, 0, "Usage of prog flags:"},
		{[]string{"help", "nope"}, 2, "prog: unknown mode \"nope\""},
		{[]string{"help"}, 0, "  misused  a usage error\n"},
		{[]string{"nope"}, 2, "prog: unknown mode \"nope\"\nusage: prog <mode>"},
		{[]string{"ok"}, 0, ""},
		{[]string{"fails"}, 1, "prog fails: broke\n"},
		{[]string{"misused"}, 2, "prog misused: usage: -x is wrong\n"},
		{[]string{"flags", "-n", "3"}, 0, ""},
		{[]string{"flags", "-help"}, 0, "Usage of prog flags:"},
		{[]string{"flags", "-n", "x"}, 2, "prog flags: usage: invalid value \"x\" for flag -n"},
		{[]string{"flags", "extra"}, 2, "prog flags: usage: unexpected argument \"extra\"\n"},
	} {
		var out, errb bytes.Buffer
		status := testProgram.Run(context.Background(), tc.args, &out, &errb)
		if status != tc.status || !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("%q: status %d, stderr %q; want %d and %q", tc.args, status, errb.String(), tc.status, tc.stderr)
		}
	}
}

func TestParseArgs(t *testing.T) {
	fs := NewFlagSet("prog", "cmd", io.Discard)
	n := fs.Int("n", 0, "a number")
	pos, err := ParseArgs(fs, []string{"a", "-n", "2", "b", "--", "-n", "c"})
	if err != nil || *n != 2 || !slices.Equal(pos, []string{"a", "b", "-n", "c"}) {
		t.Errorf("ParseArgs: %q, -n %d, %v", pos, *n, err)
	}
	if _, err := ParseArgs(fs, []string{"a", "-m"}); !errors.Is(err, ErrUsage) {
		t.Errorf("an unknown flag: %v, want a usage error", err)
	}
}
