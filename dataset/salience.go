package dataset

import (
	"fmt"
	"path/filepath"
)

// SalienceFile holds people's ratings of how worth remembering a suite's
// exchanges are, one line each: {"id": "...", "salience": 0..3}, 0 everyday
// talk, 1 a passing detail, 2 something that matters to the person, 3 a life
// event. Rated by readers who saw no code (testdata/chat/README.md).
const SalienceFile = "salience.jsonl"

// MaxSalience is the greatest rating of SalienceFile.
const MaxSalience = 3

// Rating is one line of SalienceFile.
type Rating struct {
	ID       string `json:"id"`
	Salience int    `json:"salience"`
}

// ReadRatings reads the ratings of a suite's folder (nil when it has none),
// keyed by episode id; a rating outside 0..MaxSalience or an id given twice
// is an error.
func ReadRatings(dir string) (map[string]int, error) {
	path := filepath.Join(dir, SalienceFile)
	if !fileExists(path) {
		return nil, nil
	}
	out := map[string]int{}
	err := EachInFile(path, func(r Rating) error {
		if r.ID == "" || r.Salience < 0 || r.Salience > MaxSalience {
			return fmt.Errorf("rating %+v: want an id and a salience of 0 to %d", r, MaxSalience)
		}
		if _, ok := out[r.ID]; ok {
			return fmt.Errorf("id %q rated twice", r.ID)
		}
		out[r.ID] = r.Salience
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	return out, nil
}
