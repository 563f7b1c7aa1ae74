package memorypack

import (
	"testing"
	"unicode/utf8"
)

func TestSectionRendering(t *testing.T) {
	tests := []struct {
		name     string
		sections []Section
		want     string
	}{
		{"none", nil, ""},
		{"named", []Section{{Name: "STABLE_FACTS", Text: "- a\n- b"}}, "[STABLE_FACTS]\n- a\n- b\n\n"},
		{"named empty (reference keeps the header)", []Section{{Name: "OPEN_LOOPS"}}, "[OPEN_LOOPS]\n\n"},
		{"unnamed", []Section{{Text: "あなたは優しい相棒です。"}}, "あなたは優しい相棒です。\n\n"},
		{"empty skipped", []Section{{Text: "a"}, {}, {Text: "b"}}, "a\n\nb\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, ev := range []string{"", "[EPISODE_EVIDENCE]"} {
				want, wantKept := tt.want, ev != ""
				if wantKept {
					want += ev + "\n\n"
				}
				got, kept := Assemble(0, ev, tt.sections...)
				if got != want || kept != wantKept {
					t.Errorf("evidence %q: got %q, %v; want %q, %v", ev, got, kept, want, wantKept)
				}
			}
		})
	}
}

// TestAssembleGolden is the reference pack byte for byte: each section is
// "[TITLE]\n" + lines + "\n\n", the evidence last.
func TestAssembleGolden(t *testing.T) {
	sections := []Section{
		{Name: "STABLE_FACTS", Text: "- USER 好き ラーメン"},
		{Name: "OPEN_LOOPS"},
	}
	want := "[STABLE_FACTS]\n- USER 好き ラーメン\n\n" +
		"[OPEN_LOOPS]\n\n" +
		"[EPISODE_EVIDENCE]\n" +
		"以下は現在の会話に関連する過去のやりとりです。\n" +
		"\n" +
		"[2025-12-01]\n" +
		"User: 「今週中に完成させたい」\n" +
		"Partner: 「締切は金曜日でしたね。サポートしますよ」\n" +
		"→ 関連: heuristic rerank: score=0.420 rrf=1.000 lex=0.050 rec=0.900\n" +
		"\n" +
		"[2025-11-20]\n" +
		"User: 「ラーメン食べたい」\n" +
		"→ 関連: heuristic rerank: score=0.300 rrf=0.500 lex=0.100 rec=0.700\n" +
		"\n" +
		"\n"
	got, kept := Assemble(10000, RenderEvidence(goldenItems, Options{ShowReason: true}), sections...)
	if got != want || !kept {
		t.Errorf("got %q, %v\nwant %q, true", got, kept, want)
	}
}

func TestAssembleBudget(t *testing.T) {
	// "あいう\n\n" is 5 code points (11 bytes); with "えお\n\n" the pack is 9
	// code points (19 bytes).
	sec := Section{Text: "あいう"}
	const full, base = "あいう\n\nえお\n\n", "あいう\n\n"
	tests := []struct {
		name     string
		budget   int
		evidence string
		want     string
		kept     bool
	}{
		{"no budget", 0, "えお", full, true},
		{"negative budget is no budget", -1, "えお", full, true},
		{"well under budget", 100, "えお", full, true},
		{"exactly at budget (code points, not 19 bytes)", 9, "えお", full, true},
		{"one over drops the evidence", 8, "えお", base, false},
		{"base exactly at budget", 5, "えお", base, false},
		{"others alone over budget are returned whole", 3, "えお", base, false},
		{"no evidence", 3, "", base, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, kept := Assemble(tt.budget, tt.evidence, sec)
			if got != tt.want || kept != tt.kept {
				t.Errorf("got %q, %v; want %q, %v", got, kept, tt.want, tt.kept)
			}
		})
	}
	if n := utf8.RuneCountInString(full); n != 9 || len(full) != 19 {
		t.Fatalf("fixture: %d code points, %d bytes", n, len(full))
	}
}

func TestAssembleTrimmed(t *testing.T) {
	items := []Evidence{
		{OccurredAt: at("2025-12-01T00:00:00Z"), UserText: "一", Relevance: High},
		{OccurredAt: at("2025-12-02T00:00:00Z"), UserText: "二", Relevance: Medium},
		{OccurredAt: at("2025-12-03T00:00:00Z"), UserText: "三", Relevance: Medium},
	}
	sec := Section{Name: "P", Text: "x"}
	const (
		base = "[P]\nx\n\n" // 7
		ep1  = "[2025-12-01]\nUser: 「一」\n"
		ep2  = "\n[2025-12-02]\nUser: 「二」\n"
		ep3  = "\n[2025-12-03]\nUser: 「三」\n"
	)
	pack := func(eps string) string { return base + header + eps + "\n\n" }
	all, two, one := pack(ep1+ep2+ep3), pack(ep1+ep2), pack(ep1)
	size := utf8.RuneCountInString
	tests := []struct {
		name   string
		items  []Evidence
		budget int
		want   string
		kept   int
	}{
		{"fits", items, size(all), all, 3},
		{"no budget", items, 0, all, 3},
		{"drops the last", items, size(all) - 1, two, 2},
		{"drops down to the high", items, size(two) - 1, one, 1},
		{"drops the section", items, size(one) - 1, base, 0},
		// [m, m, m] -> [m, m] -> [m] fails ShouldInject: the section goes.
		{"medium only", []Evidence{items[1], items[2], items[1]}, size(two) - 1, base, 0},
		{"not injected", items[1:2], 0, base, 0},
		{"no items", nil, 0, base, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, kept := AssembleTrimmed(tt.budget, tt.items, Options{}, sec)
			if got != tt.want || kept != tt.kept {
				t.Errorf("got %q, %d; want %q, %d", got, kept, tt.want, tt.kept)
			}
		})
	}
	// Assemble keeps the reference's all-or-nothing drop for the same budget.
	if got, kept := Assemble(size(all)-1, RenderEvidence(items, Options{}), sec); got != base || kept {
		t.Errorf("Assemble got %q, %v; want %q, false", got, kept, base)
	}
}
