package omoidehttp

import (
	"regexp"
	"testing"
)

// TestUserHeaderPattern: the OpenAPI pattern of the header admits the wire
// form of every name, byte by byte, and no other spelling.
func TestUserHeaderPattern(t *testing.T) {
	re := regexp.MustCompile(userHeaderPattern)
	for b := 0; b < 0x80; b++ {
		name := "a" + string(rune(b)) + "b"
		if w := EncodeUser(name); !re.MatchString(w) {
			t.Errorf("the pattern refuses %q, the wire form of %q", w, name)
		}
	}
	for _, name := range []string{"はるか", "김민지", "line:U123", "a@b", " mika", "50%", "o'neil(jr)!*~._-"} {
		if w := EncodeUser(name); !re.MatchString(w) {
			t.Errorf("the pattern refuses %q, the wire form of %q", w, name)
		}
	}
	for _, v := range []string{"line:U123", "a b", "%41", "%e3%81%af", "はるか", "50%", "", "%2"} {
		if re.MatchString(v) {
			t.Errorf("the pattern admits %q, no wire form", v)
		}
	}
}
