package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/omoide/omoide/dataset"
)

// rankLine is one query's line of eval -ranks.
type rankLine struct {
	Suite    string   `json:"suite"`
	Config   string   `json:"config"`
	Query    string   `json:"query"`
	Ordinal  int      `json:"ordinal"` // the query's position in queries.jsonl (ids repeat in sui-ja-dev)
	Text     string   `json:"text"`
	Category string   `json:"category,omitempty"`
	Relevant []string `json:"relevant"`
	// Ranks are the 1-based ranks of Relevant among the reranked
	// candidates, in Relevant's order; 0: not a candidate.
	Ranks      []int `json:"ranks"`
	Candidates int   `json:"candidates"`
	Picked     []int `json:"picked"` // ranks of Relevant among the selected hits, as Ranks
	Inject     bool  `json:"inject"`
	// Injected are the external ids of the episodes the companion
	// receives: the selected hits when Inject, none ([]) otherwise.
	Injected []string `json:"injected"`
	// Parts are the score parts of the first rankParts candidates and of
	// every relevant one.
	Parts []parts `json:"parts"`
}

// rankParts is how many of the first candidates -ranks gives the parts of.
const rankParts = 10

// rankWriter writes eval's per-query ranks as JSON Lines; the zero value
// (no -ranks) writes nothing.
type rankWriter struct {
	f *os.File
	w *bufio.Writer
}

func newRankWriter(path string) (*rankWriter, error) {
	if path == "" {
		return &rankWriter{}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-ranks: %w", err)
	}
	return &rankWriter{f: f, w: bufio.NewWriter(f)}, nil
}

// write writes the lines of one suite and configuration.
func (r *rankWriter) write(suite, cfg string, qs []dataset.Query, outs []outcome) error {
	if r.f == nil {
		return nil
	}
	enc := json.NewEncoder(r.w)
	for i, q := range qs {
		o := outs[i]
		l := rankLine{Suite: suite, Config: cfg, Query: q.ID, Ordinal: q.Ordinal, Text: q.Text, Category: q.Category, Relevant: q.Relevant,
			Ranks: rankOf(o.ranked, q.Relevant), Candidates: len(o.ranked), Picked: rankOf(o.picked, q.Relevant), Inject: o.inject, Injected: append([]string{}, o.injected()...), Parts: o.parts}
		if err := enc.Encode(l); err != nil {
			return fmt.Errorf("-ranks: %w", err)
		}
	}
	return nil
}

// Close flushes and closes the file; a second call does nothing.
func (r *rankWriter) Close() error {
	if r.f == nil {
		return nil
	}
	err := r.w.Flush()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	r.f = nil
	if err != nil {
		return fmt.Errorf("-ranks: %w", err)
	}
	return nil
}

// rankOf returns the 1-based position of each id of want in list, 0 when
// absent.
func rankOf(list, want []string) []int {
	out := make([]int, len(want))
	for i, w := range want {
		for j, id := range list {
			if id == w {
				out[i] = j + 1
				break
			}
		}
	}
	return out
}
