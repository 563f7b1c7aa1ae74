package omoidemcp_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/omoidemcp"
	"github.com/omoide/omoide/retriever"
)

// TestRecallCeiling: recall returns no memory above the server's ceiling,
// neither in its structured result nor in the evidence the model reads,
// whatever the preset's filter admits: the reference preset's admits secret
// (and so does a default preset widened by Config.Retriever), so only the
// ceiling keeps the private and secret memories out. Each memory the ceiling
// and the filter both admit is recalled, so that an empty recall cannot
// pass.
func TestRecallCeiling(t *testing.T) {
	// One memory at each level, each one the message plainly bears on.
	stored := []struct {
		level episode.Sensitivity
		said  string
	}{
		{episode.SensitivityNormal, "駅前の新しいラーメン屋で味噌ラーメンを食べた"},
		{episode.SensitivityPrivate, "駅前の新しいラーメン屋で元彼に会って泣いた"},
		{episode.SensitivitySecret, "駅前の新しいラーメン屋の店主に借金を頼んだ"},
	}
	const message = "駅前の新しいラーメン屋、また行きたいな"
	wide := retriever.DefaultOptions()
	wide.Filter.MaxSensitivity = episode.SensitivitySecret
	wide.Rank.Inject.Relative = 0 // every memory the message bears on, not only those near the best one: the ceiling is tested
	for _, p := range []struct {
		name string
		cfg  omoide.Config
		// filter is the most private level the preset's own filter searches.
		filter episode.Sensitivity
	}{
		{"default", omoide.Config{}, episode.SensitivityNormal},
		{"reference", omoide.Config{Preset: omoide.PresetReference}, episode.SensitivitySecret},
		{"default widened to secret", omoide.Config{Retriever: &wide}, episode.SensitivitySecret},
	} {
		t.Run(p.name, func(t *testing.T) {
			p.cfg.Path = filepath.Join(t.TempDir(), "memory.db")
			mem, err := omoide.Open(ctx, p.cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { mem.Close() })
			if got := mem.Retriever.Options().Filter.MaxSensitivity; got != p.filter {
				t.Fatalf("the preset's filter admits up to %s, want %s: the case tests another preset", got, p.filter)
			}
			writer := connect(t, mem, "はるか", omoidemcp.Config{MaxSensitivity: episode.SensitivitySecret})
			for _, m := range stored {
				ok[omoidemcp.RememberOutput](t, writer, "remember", map[string]any{"user_text": m.said, "reply_text": "そうなんだ",
					"occurred_at": "2026-05-09T12:00:00Z", "sensitivity": m.level.String()})
			}
			for _, u := range []string{"膝が痛くて今日のジョギングは休んだ", "姉と週末に買い物に行く予定", "猫のこむぎが熱を出した"} {
				ok[omoidemcp.RememberOutput](t, writer, "remember", map[string]any{"user_text": u, "reply_text": "そうなんだ", "occurred_at": "2026-04-20T12:00:00Z"})
			}
			// The secret ceiling shows what the preset alone recalls: at a
			// lower one, a memory missing is missing for the ceiling.
			for _, ceiling := range []episode.Sensitivity{episode.SensitivityNormal, episode.SensitivityPrivate, episode.SensitivitySecret} {
				cs := connect(t, mem, "はるか", omoidemcp.Config{MaxSensitivity: ceiling})
				rc, res := ok[omoidemcp.RecallOutput](t, cs, "recall", map[string]any{"message": message, "recent": []any{}})
				for _, s := range stored {
					inMemories := slices.ContainsFunc(rc.Memories, func(m omoidemcp.Memory) bool { return m.UserText == s.said })
					inEvidence := strings.Contains(rc.Evidence, s.said) || strings.Contains(text(res), s.said)
					if want := s.level <= min(ceiling, p.filter); inMemories != want || inEvidence != want {
						t.Errorf("ceiling %s: the %s memory recalled %v, in the evidence %v; want %v", ceiling, s.level, inMemories, inEvidence, want)
					}
				}
				for _, m := range rc.Memories {
					if s, err := episode.ParseSensitivity(m.Sensitivity); err != nil || s > ceiling {
						t.Errorf("ceiling %s: recalled a %s memory: %+v", ceiling, m.Sensitivity, m)
					}
				}
			}
		})
	}
}
