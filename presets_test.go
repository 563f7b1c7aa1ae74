package omoide_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/retriever"
)

// TestPresetIndexMin: the store decides how to scan, and the preset decides
// the store. A reference memory scans vec0 exactly however many episodes a
// person has (Preset.IndexMin -1), so each candidate's cosine is the exact one;
// the default memory searches a person of more than sqlite.DefaultIndexMin
// episodes in memory over quantized codes, whose cosines are close but not
// exact.
func TestPresetIndexMin(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2025, 7, 1, 12, 0, 0, 0, time.UTC)
	var eps []episode.Episode
	for i := range sqlite.DefaultIndexMin + 44 {
		eps = append(eps, episode.Episode{User: "u", UserText: fmt.Sprintf("%d日目は駅前の店でラーメンを%d杯食べた", i, i%7),
			ReplyText: "いいね", OccurredAt: now.Add(-time.Duration(i) * time.Hour)})
	}
	emb := omoide.DefaultEmbedder()
	text := "駅前のラーメン屋、また行きたい"
	q, err := emb.Embed(ctx, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	inexact := map[string]int{}
	for _, preset := range []string{omoide.PresetReference, omoide.PresetDefault} {
		mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "m.db"), Preset: preset})
		if err != nil {
			t.Fatal(err)
		}
		defer mem.Close()
		if _, err := mem.Add(ctx, eps...); err != nil {
			t.Fatal(err)
		}
		res, err := mem.Retrieve(ctx, retriever.Request{User: "u", Text: text, Recent: []retriever.Message{}, Now: now, WithCandidates: true})
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, c := range res.Candidates {
			if c.Cosine == 0 {
				continue // not found by the message's vector search
			}
			seen++
			v, err := emb.Embed(ctx, []string{c.Episode.EmbedText()})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(c.Cosine-dot(q[0], v[0])) > 1e-5 {
				inexact[preset]++
			}
		}
		if seen == 0 {
			t.Fatalf("%s: no candidate came from the vector search", preset)
		}
	}
	if inexact[omoide.PresetReference] != 0 {
		t.Errorf("reference: %d cosines are not the exact scan's", inexact[omoide.PresetReference])
	}
	if inexact[omoide.PresetDefault] == 0 {
		t.Errorf("default: every cosine is exact: the person's %d episodes were not searched in memory", len(eps))
	}
}

// dot is the cosine of two of the hash embedder's vectors, which are
// L2-normalised.
func dot(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

// TestLookupPreset: the presets' parts, and an unknown name's error naming
// the ones there are.
func TestLookupPreset(t *testing.T) {
	ref, err := omoide.LookupPreset(omoide.PresetReference)
	if err != nil || ref.IndexMin != -1 || ref.Analyzer.Name() != "raw" || ref.Pack.Header != "<<<COCORO_GHOST_SECTION:EPISODE_EVIDENCE>>>" ||
		!ref.Retriever.Context.OtherRoles {
		t.Errorf("reference preset %+v, %v", ref, err)
	}
	def, err := omoide.LookupPreset("")
	if err != nil || def.IndexMin != 0 || def.Analyzer.Name() != "cjk2" || def.Pack.Header != "[EPISODE_EVIDENCE]" {
		t.Errorf("default preset %+v, %v", def, err)
	}
	if _, err := omoide.LookupPreset("fast"); err == nil || !strings.Contains(err.Error(), `"fast"`) || !strings.Contains(err.Error(), omoide.PresetReference) {
		t.Errorf("unknown preset: %v", err)
	}
}
