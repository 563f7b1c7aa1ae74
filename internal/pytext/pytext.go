// Package pytext reproduces the small pieces of Python string semantics that the
// reference retriever depends on: what str.split() treats as whitespace, the
// " ".join(s.split()) compaction, and slicing by code points.
package pytext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace reports whether Python's str.isspace() is true for r. It is Go's
// unicode.IsSpace plus the ASCII information separators U+001C..U+001F, which
// Python counts as whitespace (bidirectional class B or S) and Go does not.
func IsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// Fields splits s around runs of Python whitespace, as str.split() does.
func Fields(s string) []string {
	return strings.FieldsFunc(s, IsSpace)
}

// Compact removes carriage returns, turns every whitespace run into one space
// and trims both ends: Python's " ".join(s.replace("\r", "").split()).
func Compact(s string) string {
	// Fast path: nothing to do for text with no leading, trailing, repeated or
	// non-space whitespace.
	if isCompact(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	pendingSpace := false
	for _, r := range s {
		if r == '\r' {
			continue
		}
		if IsSpace(r) {
			pendingSpace = b.Len() > 0
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
			pendingSpace = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isCompact(s string) bool {
	prevSpace := true // a leading space is not compact
	for _, r := range s {
		if r == '\r' || r == utf8.RuneError {
			return false
		}
		if IsSpace(r) {
			if r != ' ' || prevSpace {
				return false
			}
			prevSpace = true
			continue
		}
		prevSpace = false
	}
	return !prevSpace || s == ""
}

// Head returns the first n code points of s (Python s[:n]).
func Head(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// Tail returns the last n code points of s (Python s[-n:] for n > 0).
func Tail(s string, n int) string {
	if n <= 0 {
		return ""
	}
	count := utf8.RuneCountInString(s)
	if count <= n {
		return s
	}
	skip := count - n
	i := 0
	for pos := range s {
		if i == skip {
			return s[pos:]
		}
		i++
	}
	return ""
}

// Clip compacts s and, when it has more than limit code points, cuts it to
// limit, trims trailing whitespace and appends "…". limit <= 0 returns the
// compacted text unclipped.
func Clip(s string, limit int) string {
	s = Compact(s)
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	return strings.TrimRightFunc(Head(s, limit), IsSpace) + "…"
}
