package pytext

import (
	"slices"
	"testing"
)

func TestIsSpaceMatchesPython(t *testing.T) {
	// Every character for which Python's str.isspace() is true (Python 3.12).
	python := []rune{0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
		0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000}
	for r := rune(0); r <= 0x10FFFF; r++ {
		if got, want := IsSpace(r), slices.Contains(python, r); got != want {
			t.Errorf("IsSpace(%U) = %v, Python says %v", r, got, want)
		}
	}
}

func TestCompact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"  a  b  ", "a b"},
		{"a\r\nb", "a b"},
		{"a\rb", "ab"}, // CR is removed, not turned into a space
		{"今日は\u3000晴れ", "今日は 晴れ"},
		{"a\x1cb", "a b"},
		{"a\u200bb", "a\u200bb"}, // zero-width space is not whitespace in Python
		{"\t\n", ""},
		{"a\xffb", "a\ufffdb"},
	}
	for _, tt := range tests {
		if got := Compact(tt.in); got != tt.want {
			t.Errorf("Compact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHeadTail(t *testing.T) {
	s := "あいうえお"
	tests := []struct {
		n          int
		head, tail string
	}{
		{0, "", ""}, {2, "あい", "えお"}, {5, s, s}, {9, s, s},
	}
	for _, tt := range tests {
		if got := Head(s, tt.n); got != tt.head {
			t.Errorf("Head(%d) = %q, want %q", tt.n, got, tt.head)
		}
		if got := Tail(s, tt.n); got != tt.tail {
			t.Errorf("Tail(%d) = %q, want %q", tt.n, got, tt.tail)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"あいうえお", 5, "あいうえお"},
		{"あいうえおか", 5, "あいうえお…"},
		{"あい うえお", 3, "あい…"},            // the cut ends in a space: trimmed before "…"
		{"あい\u3000\u3000うえお", 3, "あい…"}, // compacted first: "あい うえお"
		{"a\n\nb", 0, "a b"},
	}
	for _, tt := range tests {
		if got := Clip(tt.in, tt.limit); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}

func TestFields(t *testing.T) {
	if got := Fields("ラーメン\u3000を 食べた\x1f!"); !slices.Equal(got, []string{"ラーメン", "を", "食べた", "!"}) {
		t.Fatalf("Fields = %q", got)
	}
}
