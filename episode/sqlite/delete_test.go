package sqlite

import (
	"slices"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
)

// TestDeleteSaysWhat checks Delete's Deleted: the episodes it removed as they
// were, in the order given, each once; the ids it did not hold, each once;
// and the store's count, which drops by the episodes removed only.
func TestDeleteSaysWhat(t *testing.T) {
	s := newStore(t)
	eps := []episode.Episode{ep("a", "one", "1", day), ep("b", "two", "2", day.Add(time.Hour)), ep("a", "three", "3", day)}
	eps[1].ExternalID = "b-2"
	ids, err := s.Add(ctx, eps)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Delete(ctx, ids[1], 999, ids[1], ids[0], 999, 998)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, e := range d.Episodes {
		got = append(got, e.ID)
	}
	if !slices.Equal(got, []int64{ids[1], ids[0]}) || !slices.Equal(d.Missing, []int64{999, 998}) {
		t.Fatalf("Delete: episodes %v, missing %v; want %v, [999 998]", got, d.Missing, []int64{ids[1], ids[0]})
	}
	if e := d.Episodes[0]; e.User != "b" || e.ExternalID != "b-2" || e.UserText != "two" || e.ReplyText != "2" || !e.OccurredAt.Equal(day.Add(time.Hour)) {
		t.Errorf("the deleted episode as it was: %+v", e)
	}
	if n, _ := s.Count(ctx, ""); n != 1 {
		t.Errorf("Count after deleting 2 of 3: %d", n)
	}
	if c := tableCounts(t, s); c != [3]int{1, 1, 1} {
		t.Errorf("tables after delete: %v", c)
	}
	// Deleted already: missing, nothing removed.
	if d, err := s.Delete(ctx, ids[0]); err != nil || len(d.Episodes) != 0 || !slices.Equal(d.Missing, []int64{ids[0]}) {
		t.Errorf("Delete again = %+v, %v; want %d missing", d, err, ids[0])
	}
	if d, err := s.Delete(ctx); err != nil || d.Episodes != nil || d.Missing != nil {
		t.Errorf("Delete() = %+v, %v; want nothing", d, err)
	}
}
