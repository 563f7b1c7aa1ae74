package synonym

import (
	"bytes"
	"compress/gzip"
	"slices"
	"sync"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		term        string
		has, hasNot []string
	}{
		{"シール", []string{"ステッカー"}, []string{"シール"}},
		{"子供", []string{"子ども", "キッズ"}, []string{"子供"}},
		{"子ども", []string{"子供"}, nil},
		{"浜辺", []string{"砂浜", "ビーチ"}, nil},
		{"二", []string{"2"}, nil},
		{"2", []string{"二"}, nil},
		{"犬", []string{"いぬ", "イヌ"}, nil}, // kana spellings of a noun
		{"イヌ", []string{"犬"}, nil},
		{"かき", nil, nil}, // 柿, 牡蠣, 夏期, 下記, ...: a kana reading of many nouns finds none
		{"柿", []string{"かき"}, nil},
		{"kid", []string{"child", "子供"}, nil}, // English as the analyzer stems it
		{"ラーメンライス", nil, nil},
		{"", nil, nil},
	}
	for _, tt := range tests {
		got := Of(tt.term)
		if tt.has == nil && got != nil {
			t.Errorf("Of(%q) = %q, want none", tt.term, got)
		}
		for _, w := range tt.has {
			if !slices.Contains(got, w) {
				t.Errorf("Of(%q) = %q, want it to hold %q", tt.term, got, w)
			}
		}
		for _, w := range tt.hasNot {
			if slices.Contains(got, w) {
				t.Errorf("Of(%q) = %q, holds %q", tt.term, got, w)
			}
		}
		if !slices.IsSorted(got) {
			t.Errorf("Of(%q) = %q, not sorted", tt.term, got)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for name, text := range map[string]string{
		"no tab":      "シール ステッカー\n",
		"no synonyms": "シール\t\n",
		"unsorted":    "子供\t子ども\nシール\tステッカー\n",
		"repeated":    "シール\tステッカー\nシール\tseal\n",
	} {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(text))
		zw.Close()
		if _, err := parse(b.Bytes()); err == nil {
			t.Errorf("%s: parse accepted %q", name, text)
		}
	}
	if _, err := parse([]byte("not gzip")); err == nil {
		t.Error("parse accepted data that is not gzip")
	}
}

// TestOfConcurrent loads the table from many goroutines at once (run with
// -race).
func TestOfConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := Of("シール"); !slices.Contains(got, "ステッカー") {
				t.Errorf("Of(シール) = %q", got)
			}
		})
	}
	wg.Wait()
}

// BenchmarkParse is the cost of the first Of: reading the embedded table.
func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOf(b *testing.B) {
	terms := []string{"子供", "シール", "ラーメン", "犬", "kid", "unknownword"}
	if err := Load(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		Of(terms[i%len(terms)])
	}
}
