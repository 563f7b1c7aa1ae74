package main

import "unicode/utf8"

// clipRunes cuts s to n code points, for quoting input in an error.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
