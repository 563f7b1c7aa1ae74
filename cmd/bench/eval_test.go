package main

import (
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
)

func TestWithDistractors(t *testing.T) {
	at := time.Date(2024, 4, 1, 12, 0, 0, 0, time.UTC)
	eps := []episode.Episode{
		{User: "a", UserText: "x", OccurredAt: at},
		{User: "b", UserText: "y", OccurredAt: at.AddDate(0, 0, -30)},
		{User: "a", UserText: "z", OccurredAt: at.AddDate(0, 0, -10)},
	}
	dis := []episode.Episode{{User: "hay", UserText: "d1"}, {User: "hay", UserText: "d2"}}
	out := withDistractors(eps, dis)
	if len(out) != len(eps)+2*len(dis) {
		t.Fatalf("%d episodes, want %d", len(out), len(eps)+2*len(dis))
	}
	per := map[string]int{}
	for _, e := range out[len(eps):] {
		per[e.User]++
		newest := at
		if e.User == "b" {
			newest = at.AddDate(0, 0, -30)
		}
		if !e.OccurredAt.Before(newest) || e.OccurredAt.Before(newest.AddDate(0, 0, -300)) || e.ExternalID == "" {
			t.Errorf("distractor %+v: not inside the 300 days before %s, or no external id", e, newest)
		}
	}
	if per["a"] != 2 || per["b"] != 2 || per["hay"] != 0 {
		t.Fatalf("distractors per person: %v", per)
	}
}
