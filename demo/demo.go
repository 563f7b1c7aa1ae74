// Package demo holds the Japanese demo conversations of this folder
// (README.md), embedded for "omoide demo" so that it runs from any directory;
// TestGolden asks the same questions (testdata/ja/golden). The library never
// imports it: no program that links omoide carries them.
package demo

import (
	"bytes"
	_ "embed" // the demo conversations

	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/episode"
)

//go:embed episodes.jsonl
var episodesJSONL []byte

//go:embed queries.jsonl
var queriesJSONL []byte

// Episodes returns the demo's episodes, in the order of episodes.jsonl.
func Episodes() ([]episode.Episode, error) {
	var eps []episode.Episode
	err := dataset.Read(bytes.NewReader(episodesJSONL), func(e dataset.Episode) error { eps = append(eps, e.Episode()); return nil })
	return eps, err
}

// Queries returns the demo's questions, in the order of queries.jsonl.
func Queries() ([]dataset.Query, error) {
	var qs []dataset.Query
	err := dataset.Read(bytes.NewReader(queriesJSONL), func(q dataset.Query) error { qs = append(qs, q); return nil })
	return qs, err
}
