package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/dataset"
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

// TestEvalSizes: -sizes judges the same queries with every person's store
// at each size, says so in a size column and the JSON, cuts a store to a
// size and grows it with the other person's everyday chat.
func TestEvalSizes(t *testing.T) {
	dir := t.TempDir()
	writeSuite(t, dir)
	// The episodes no query names become everyday chat.
	eps, err := dataset.ReadFile[dataset.Episode](filepath.Join(dir, "episodes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := dataset.LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, q := range s.Queries {
		for _, id := range q.Relevant {
			named[id] = true
		}
	}
	var memories, everyday bytes.Buffer
	for _, e := range eps {
		b, _ := json.Marshal(e)
		if named[e.ID] {
			memories.Write(append(b, '\n'))
		} else {
			everyday.Write(append(b, '\n'))
		}
	}
	os.WriteFile(filepath.Join(dir, "episodes.jsonl"), memories.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, dataset.EverydayFile), everyday.Bytes(), 0o644)

	jsonPath := filepath.Join(t.TempDir(), "eval.json")
	code, out, errOut := benchStatus(t, "eval", "-suite", dir, "-preset", "default", "-sizes", "stored,20,150", "-json", jsonPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "By size, all queries:") || !strings.Contains(errOut, "at 20 exchanges a person: 2 people, 2 cut") ||
		!strings.Contains(errOut, "at 150 exchanges a person: 2 people, 0 cut, 2 grown") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	n := map[string]float64{}
	for _, res := range readReport(t, jsonPath).Results {
		if res.Category == "all" {
			n[res.Size] = res.Metrics.(map[string]any)["n"].(float64)
		}
	}
	if len(n) != 3 || n["stored"] == 0 || n["20"] != n["stored"] || n["150"] != n["stored"] {
		t.Fatalf("queries by size %v: want the same queries at stored, 20 and 150", n)
	}
	// A suite that grows with the haystack reads it only to grow.
	os.WriteFile(filepath.Join(dir, dataset.SuiteFile), []byte(`{"grow": "haystack"}`), 0o644)
	missing := filepath.Join(t.TempDir(), "none.jsonl.gz")
	if code, _, errOut := benchStatus(t, "eval", "-suite", dir, "-preset", "default", "-sizes", "20", "-haystack", missing); code != 0 {
		t.Fatalf("a cut read the haystack: exit %d: %s", code, errOut)
	}
	if code, _, errOut := benchStatus(t, "eval", "-suite", dir, "-preset", "default", "-sizes", "150", "-haystack", missing); code == 0 || !strings.Contains(errOut, "-haystack, which") {
		t.Fatalf("growth without the haystack: exit %d: %s", code, errOut)
	}
	for _, bad := range [][]string{{"-sizes", "0"}, {"-sizes", "big"}, {"-sizes", "300", "-distractors", "5"}} {
		if code, _, errOut := benchStatus(t, append([]string{"eval", "-suite", dir}, bad...)...); code != 2 || !strings.Contains(errOut, bad[1]) && !strings.Contains(errOut, "-distractors") {
			t.Errorf("%v: exit %d, %s", bad, code, errOut)
		}
	}
}
