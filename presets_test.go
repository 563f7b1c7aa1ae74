package omoide_test

import (
	"testing"

	"github.com/omoide/omoide"
)

// TestStoreIndexMin: the reference preset's store scans exactly (IndexMin
// -1) unless an IndexMin is given; the default preset's keeps the episode
// package's default.
func TestStoreIndexMin(t *testing.T) {
	for _, tt := range []struct {
		preset         string
		indexMin, want int
	}{
		{omoide.PresetReference, 0, -1},
		{omoide.PresetReference, 100, 100},
		{omoide.PresetDefault, 0, 0},
		{omoide.PresetDefault, -1, -1},
	} {
		o, _, err := omoide.PresetOptions(tt.preset)
		if err != nil {
			t.Fatal(err)
		}
		if got := omoide.StoreIndexMin(o, tt.indexMin); got != tt.want {
			t.Errorf("%s, IndexMin %d: store IndexMin %d, want %d", tt.preset, tt.indexMin, got, tt.want)
		}
	}
}
