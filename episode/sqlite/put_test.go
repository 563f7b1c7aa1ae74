package sqlite

import (
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
)

// TestPutSays: Put counts, in its own transaction, what it did with each
// episode: added, replaced (with replace) or already present (the same
// content again, a repeat in the batch, a retried episode without an id).
func TestPutSays(t *testing.T) {
	s := newStore(t)
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	withID := func(id, text string) episode.Episode {
		e := ep("u", text, "ok", at)
		e.ExternalID = id
		return e
	}
	noID := ep("u", "retried", "ok", at)
	steps := []struct {
		name    string
		eps     []episode.Episode
		replace bool
		want    [3]int // added, replaced, present
	}{
		{"new", []episode.Episode{withID("a", "one"), withID("b", "two"), noID}, false, [3]int{3, 0, 0}},
		{"again", []episode.Episode{withID("a", "one"), withID("b", "two"), noID}, false, [3]int{0, 0, 3}},
		{"a repeat in the batch", []episode.Episode{withID("c", "three"), withID("c", "three")}, false, [3]int{1, 0, 1}},
		{"replaced", []episode.Episode{withID("a", "one, edited"), withID("b", "two"), withID("d", "four")}, true, [3]int{1, 1, 1}},
	}
	for _, st := range steps {
		r, err := s.Put(ctx, st.replace, st.eps...)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := [3]int{r.Added, r.Replaced, r.Present}; got != st.want || len(r.IDs) != len(st.eps) {
			t.Errorf("%s: added, replaced, present %v with %d ids; want %v with %d", st.name, got, len(r.IDs), st.want, len(st.eps))
		}
	}
	if n, err := s.Count(ctx, "u"); err != nil || n != 5 {
		t.Errorf("stored %d, %v; want 5 (a, b, the id-less one, c, d)", n, err)
	}
	if _, err := s.Put(ctx, false, withID("a", "other")); err == nil {
		t.Error("other content without replace: want ErrConflict")
	}
}
