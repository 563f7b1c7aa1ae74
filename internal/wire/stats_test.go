package wire_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/wire"
	"github.com/omoide/omoide/retriever"
)

func TestStoreStats(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	mem, err := omoide.Open(ctx, omoide.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var eps []episode.Episode
	for i, e := range []episode.Episode{{}, {}, {Sensitivity: episode.SensitivityPrivate}, {Sensitivity: episode.SensitivitySecret}, {State: episode.StateArchived}} {
		e.User, e.ExternalID, e.UserText, e.OccurredAt = "haruka", string(rune('a'+i)), "猫が好き", at
		eps = append(eps, e)
	}
	if _, err := mem.Add(ctx, eps...); err != nil {
		t.Fatal(err)
	}
	def, ref := retriever.DefaultOptions(), retriever.ReferenceOptions()
	all := def
	all.Filter = retriever.Filter{MaxSensitivity: episode.SensitivitySecret, States: []episode.State{episode.StateRaw, episode.StateArchived}}
	tests := []struct {
		name       string
		o          retriever.Options
		unsearched int
		decision   string
	}{
		{"default", def, 3, "relevance model"},
		{"reference", ref, 1, "rules (no relevance model)"},
		{"every episode", all, 0, "relevance model"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			js, err := wire.StoreStats(ctx, path, mem.Store, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if js.Path != path || js.Episodes != 5 || js.Users != 1 || !js.Consistent {
				t.Errorf("stats %+v, want 5 consistent episodes of 1 person at %s", js, path)
			}
			if js.Unsearched == nil || js.Unsearched.Total() != tc.unsearched {
				t.Errorf("unsearched %+v, want %d", js.Unsearched, tc.unsearched)
			}
			if len(js.Decision) < len(tc.decision) || js.Decision[:len(tc.decision)] != tc.decision {
				t.Errorf("decision %q, want it to start with %q", js.Decision, tc.decision)
			}
		})
	}
}
