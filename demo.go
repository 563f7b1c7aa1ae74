package omoide

import (
	"bytes"
	_ "embed" // the demo conversations
	"io"
)

//go:embed testdata/ja/episodes.jsonl
var demoEpisodes []byte

//go:embed testdata/ja/queries.jsonl
var demoQueries []byte

// DemoData returns the Japanese demo conversations of testdata/ja: episodes
// and queries in the JSON Lines format of package dataset.
func DemoData() (episodes, queries io.Reader) {
	return bytes.NewReader(demoEpisodes), bytes.NewReader(demoQueries)
}
