package smalltalk

import (
	"strings"
	"testing"

	"github.com/omoide/omoide/timeexpr"
)

// FuzzNeedsMemory checks that NeedsMemory and Cue never panic, that a cue
// always means memory, and that the cue is part of the normalized text.
func FuzzNeedsMemory(f *testing.F) {
	for _, s := range []string{"おはよー！！", "ありがとう、あの時の話覚えてる？", "ok google", "👍🏻", "against", "\xff上次"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		need := NeedsMemory(text)
		cue, ok := Cue(text)
		if ok && (!need || cue == "" || !strings.Contains(timeexpr.Normalize(text), cue)) {
			t.Fatalf("Cue(%q) = %q but NeedsMemory = %v", text, cue, need)
		}
	})
}
