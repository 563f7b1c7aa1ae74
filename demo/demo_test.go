package demo

import "testing"

// TestDemoData: the embedded conversations read, every question names a
// person who has episodes, and every episode a question calls relevant
// exists and is that person's.
func TestDemoData(t *testing.T) {
	eps, err := Episodes()
	if err != nil {
		t.Fatal(err)
	}
	qs, err := Queries()
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) == 0 || len(qs) == 0 {
		t.Fatalf("%d episodes, %d queries", len(eps), len(qs))
	}
	owner := make(map[string]string, len(eps))
	people := map[string]bool{}
	for _, e := range eps {
		if _, dup := owner[e.ExternalID]; dup {
			t.Errorf("episode %s twice", e.ExternalID)
		}
		owner[e.ExternalID] = e.User
		people[e.User] = true
	}
	for _, q := range qs {
		if !people[q.User] {
			t.Errorf("query %s: %s has no episodes", q.ID, q.User)
		}
		for _, id := range q.Relevant {
			if u, ok := owner[id]; !ok || u != q.User {
				t.Errorf("query %s: relevant %s is not one of %s's episodes", q.ID, id, q.User)
			}
		}
	}
}
