package hftokenizer

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func loadFixture(t testing.TB, name string) *Tokenizer {
	t.Helper()
	tok, err := LoadFile(filepath.Join("testdata", name, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// minimal returns a small valid tokenizer.json with the given parts
// replaced (raw JSON values keyed by top-level field).
func minimal(parts map[string]string) string {
	doc := map[string]string{
		"version":       `"1.0"`,
		"added_tokens":  `[]`,
		"normalizer":    `null`,
		"pre_tokenizer": `{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true}`,
		"model":         `{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["▁a",-1],["a",-2],["b",-2],["▁",-3]]}`,
	}
	for k, v := range parts {
		doc[k] = v
	}
	var b strings.Builder
	b.WriteString("{")
	first := true
	for _, k := range []string{"version", "added_tokens", "normalizer", "pre_tokenizer", "model"} {
		if !first {
			b.WriteString(",")
		}
		first = false
		b.WriteString(strconv.Quote(k) + ":" + doc[k])
	}
	b.WriteString("}")
	return b.String()
}

func TestLoadErrors(t *testing.T) {
	charsmap := func(b []byte) string {
		s, _ := json.Marshal(map[string]string{"type": "Precompiled", "precompiled_charsmap": base64.StdEncoding.EncodeToString(b)})
		return string(s)
	}
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"malformed json", `{"model": {`, "parse tokenizer.json"},
		{"not utf8", "{\"model\":\"\xff\"}", "not valid UTF-8"},
		{"no model", `{"version":"1.0"}`, "model is missing"},
		{"bpe", minimal(map[string]string{"model": `{"type":"BPE","vocab":{},"merges":[]}`}), `model type "BPE" is not supported`},
		{"wordlevel", minimal(map[string]string{"model": `{"type":"WordLevel","vocab":{},"unk_token":"x"}`}), `model type "WordLevel" is not supported`},
		{"model without type", minimal(map[string]string{"model": `{"vocab":[["a",0]]}`}), `model has no "type"`},
		{"version", minimal(map[string]string{"version": `"2.0"`}), `version "2.0" is not supported`},
		{"byte level normalizer", minimal(map[string]string{"normalizer": `{"type":"ByteLevel"}`}), `normalizer type "ByteLevel" is not supported`},
		{"nested unknown normalizer", minimal(map[string]string{"normalizer": `{"type":"Sequence","normalizers":[{"type":"NFC"},{"type":"Magic"}]}`}), `normalizer type "Magic" is not supported`},
		{"byte level pre-tokenizer", minimal(map[string]string{"pre_tokenizer": `{"type":"ByteLevel","add_prefix_space":false}`}), `pre_tokenizer type "ByteLevel" is not supported`},
		{"split pre-tokenizer", minimal(map[string]string{"pre_tokenizer": `{"type":"Split","pattern":{"String":" "},"behavior":"Removed"}`}), `pre_tokenizer type "Split" is not supported`},
		{"unicode regex", minimal(map[string]string{"normalizer": `{"type":"Replace","pattern":{"Regex":"\\s+"},"content":" "}`}), `Regex pattern "\\s+" is not supported`},
		{"anchored regex", minimal(map[string]string{"normalizer": `{"type":"Replace","pattern":{"Regex":"^ +"},"content":""}`}), "is not supported"},
		{"empty-matching regex", minimal(map[string]string{"normalizer": `{"type":"Replace","pattern":{"Regex":" *"},"content":""}`}), "matches the empty string"},
		{"empty string pattern", minimal(map[string]string{"normalizer": `{"type":"Replace","pattern":{"String":""},"content":"x"}`}), "empty String pattern"},
		{"bad behavior", minimal(map[string]string{"pre_tokenizer": `{"type":"Punctuation","behavior":"Sideways"}`}), `split behavior "Sideways"`},
		{"bad prepend scheme", minimal(map[string]string{"pre_tokenizer": `{"type":"Metaspace","replacement":"▁","prepend_scheme":"sometimes"}`}), `prepend_scheme "sometimes"`},
		{"no unk id", minimal(map[string]string{"model": `{"type":"Unigram","unk_id":null,"vocab":[["a",0]]}`}), "without unk_id"},
		{"unk id out of range", minimal(map[string]string{"model": `{"type":"Unigram","unk_id":3,"vocab":[["a",0]]}`}), "outside the vocab"},
		{"bad score", minimal(map[string]string{"model": `{"type":"Unigram","unk_id":0,"vocab":[["a","x"]]}`}), "invalid number"},
		{"bad vocab entry", minimal(map[string]string{"model": `{"type":"Unigram","unk_id":0,"vocab":[["a"]]}`}), "not a [piece, score] pair"},
		{"wordpiece without unk", minimal(map[string]string{"model": `{"type":"WordPiece","unk_token":"[UNK]","vocab":{"a":0}}`}), `unk_token "[UNK]" is not in the vocab`},
		{"charsmap not base64", minimal(map[string]string{"normalizer": `{"type":"Precompiled","precompiled_charsmap":"!!!"}`}), "not base64"},
		{"charsmap missing", minimal(map[string]string{"normalizer": `{"type":"Precompiled"}`}), "no precompiled_charsmap"},
		{"charsmap too short", minimal(map[string]string{"normalizer": charsmap([]byte{1, 0})}), "too short"},
		{"charsmap empty trie", minimal(map[string]string{"normalizer": charsmap([]byte{0, 0, 0, 0, 'a', 0})}), "empty trie"},
		{"charsmap truncated trie", minimal(map[string]string{"normalizer": charsmap([]byte{16, 0, 0, 0, 1, 2, 3, 4})}), "exceeds"},
		{"charsmap bad pool", minimal(map[string]string{"normalizer": charsmap([]byte{4, 0, 0, 0, 0, 0, 0, 0, 0xff, 0})}), "not valid UTF-8"},
		{"same normalized added token", minimal(map[string]string{
			"normalizer":   `{"type":"Lowercase"}`,
			"added_tokens": `[{"id":5,"content":"AB","normalized":true},{"id":6,"content":"ab","normalized":true}]`,
		}), "match the same text"},
		{"truncation direction", `{"truncation":{"max_length":3,"direction":"Middle"},"model":{"type":"Unigram","unk_id":0,"vocab":[["a",0]]}}`, `truncation direction "Middle"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := Load(strings.NewReader(tt.doc))
			if err == nil {
				t.Fatalf("Load succeeded (%v), want error containing %q", tok != nil, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "hftokenizer: ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := LoadFile(filepath.Join("testdata", "no-such-dir", "tokenizer.json")); err == nil || !strings.HasPrefix(err.Error(), "hftokenizer: ") {
		t.Fatalf("LoadFile of a missing file: %v", err)
	}
}

func TestMinimalUnigram(t *testing.T) {
	tok, err := Load(strings.NewReader(minimal(nil)))
	if err != nil {
		t.Fatal(err)
	}
	// "▁a" (-1) beats "▁"+"a" (-5); "c" is unknown and fused with "d".
	for text, want := range map[string][]int{
		"":     {},
		"a":    {1},
		"a b":  {1, 4, 3},
		"cd":   {4, 0},
		"acdb": {1, 0, 3},
	} {
		if got := tok.Encode(text); !slices.Equal(got, want) {
			t.Errorf("Encode(%q) = %v, want %v", text, got, want)
		}
	}
	if tok.VocabSize() != 5 {
		t.Errorf("VocabSize = %d, want 5", tok.VocabSize())
	}
	if id, ok := tok.TokenID("▁a"); !ok || id != 1 {
		t.Errorf("TokenID(▁a) = %d, %v", id, ok)
	}
	if _, ok := tok.TokenID("zzz"); ok {
		t.Error("TokenID(zzz) found")
	}
}

func TestInvalidUTF8(t *testing.T) {
	for _, name := range []string{"ja_unigram", "en_wordpiece", "multi_unigram_precompiled"} {
		tok := loadFixture(t, name)
		// Each byte that is not UTF-8 is one U+FFFD, as the crate's callers
		// (String::from_utf8_lossy) make it.
		for _, c := range []struct{ in, as string }{
			{"\xff", "\uFFFD"}, {"a\xffb", "a\uFFFDb"}, {"今日\xe4\xbaは", "今日\uFFFD\uFFFDは"}, {"\xed\xa0\x80x", "\uFFFD\uFFFD\uFFFDx"},
		} {
			if got, want := tok.Encode(c.in), tok.Encode(c.as); !slices.Equal(got, want) {
				t.Errorf("%s: Encode(%q) = %v, want Encode(%q) = %v", name, c.in, got, c.as, want)
			}
			if fixed := sanitize(c.in); fixed != c.as {
				t.Errorf("sanitize(%q) = %q, want %q", c.in, fixed, c.as)
			}
		}
	}
	if got := sanitize("a\xe4\xbab"); got != "a\uFFFD\uFFFDb" {
		t.Errorf("sanitize replaced the bytes as %q, want one U+FFFD per byte", got)
	}
}

// TestCharsmapDecoder checks the Go decoder against the generator's own
// list of mappings: every key gives the replacement of its shortest key
// prefix (spm_precompiled returns the first common-prefix result).
func TestCharsmapDecoder(t *testing.T) {
	dir := filepath.Join("testdata", "multi_unigram_precompiled")
	raw, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Normalizer struct {
			Normalizers []struct {
				Type     string `json:"type"`
				Charsmap string `json:"precompiled_charsmap"`
			} `json:"normalizers"`
		} `json:"normalizer"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var p *precompiled
	for _, n := range doc.Normalizer.Normalizers {
		if n.Type == "Precompiled" {
			if p, err = parsePrecompiled(n.Charsmap); err != nil {
				t.Fatal(err)
			}
		}
	}
	if p == nil {
		t.Fatal("fixture has no Precompiled normalizer")
	}
	raw, err = os.ReadFile(filepath.Join(dir, "charsmap_mappings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mappings []struct{ Key, Value string }
	if err := json.Unmarshal(raw, &mappings); err != nil {
		t.Fatal(err)
	}
	byKey := make(map[string]string, len(mappings))
	for _, m := range mappings {
		byKey[m.Key] = m.Value
	}
	if len(byKey) < 100 {
		t.Fatalf("only %d mappings", len(byKey))
	}
	for _, m := range mappings {
		want := m.Value
		for i := 1; i < len(m.Key); i++ {
			if v, ok := byKey[m.Key[:i]]; ok {
				want = v
				break
			}
		}
		got, ok := p.transform(m.Key)
		if !ok || got != want {
			t.Errorf("transform(%q) = %q, %v; want %q", m.Key, got, ok, want)
		}
	}
	for _, s := range []string{"a", "x", "漢", "zz", "\x00", ""} {
		if got, ok := p.transform(s); ok {
			t.Errorf("transform(%q) = %q, want no mapping", s, got)
		}
	}
}

// TestSerdeFloat checks score parsing against the reference crate's own
// reading of the same numbers (it is not correctly rounded).
func TestSerdeFloat(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "serde_floats.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		t.Fatal(err)
	}
	lossy := 0
	for _, p := range pairs {
		got, err := parseSerdeFloat(p[0])
		if err != nil {
			t.Errorf("parseSerdeFloat(%s): %v", p[0], err)
			continue
		}
		want, err := strconv.ParseFloat(p[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("parseSerdeFloat(%s) = %v, the crate reads %s", p[0], got, p[1])
		}
		if exact, _ := strconv.ParseFloat(p[0], 64); exact != want {
			lossy++
		}
	}
	if lossy == 0 {
		t.Error("no fixture number where the crate differs from correct rounding")
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "x", "1x", "1e999"} {
		if _, err := parseSerdeFloat(bad); err == nil {
			t.Errorf("parseSerdeFloat(%q) succeeded", bad)
		}
	}
}

func TestConcurrentEncode(t *testing.T) {
	tok := loadFixture(t, "multi_unigram_precompiled")
	cases := readCases(t, filepath.Join("testdata", "multi_unigram_precompiled", "cases.jsonl"))
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := range cases {
				c := cases[(i+g*37)%len(cases)]
				if got := tok.Encode(c.Text); !slices.Equal(got, c.IDs) {
					errs <- c.Text
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for text := range errs {
		t.Errorf("concurrent Encode(%q) differs from the fixture", text)
	}
}

func FuzzEncode(f *testing.F) {
	var toks []*Tokenizer
	for _, dir := range fixtureDirs(f) {
		toks = append(toks, loadFixture(f, filepath.Base(dir)))
	}
	for _, s := range []string{"", " ", "今日は雨", "ｶﾞ\r\n<mask> [SEP]", "e\u0301\u0301", "\xff\xfe", "👨\u200d👩", "omoide omoide"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range toks {
			ids := tok.Encode(s)
			for _, id := range ids {
				if id < 0 || id >= tok.VocabSize() {
					t.Fatalf("Encode(%q) returned id %d outside [0, %d)", s, id, tok.VocabSize())
				}
			}
			if again := tok.Encode(s); !slices.Equal(ids, again) {
				t.Fatalf("Encode(%q) is not deterministic", s)
			}
		}
	})
}

func BenchmarkEncode(b *testing.B) {
	const msg = "明日の会議は十時からに変更になりました。" // 20 characters
	if n := utf8.RuneCountInString(msg); n != 20 {
		b.Fatalf("message has %d characters", n)
	}
	for _, name := range []string{"ja_unigram", "multi_unigram_precompiled", "en_wordpiece"} {
		tok := loadFixture(b, name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tok.Encode(msg)
			}
		})
	}
}

// TestVocabAndUnkToken checks what model2vec reads of a tokenizer: get_vocab
// in id order (the added tokens too) and the model's unk_token, which only
// WordPiece has.
func TestVocabAndUnkToken(t *testing.T) {
	uni, err := LoadFile(filepath.Join("testdata", "multi_unigram_precompiled", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := uni.UnkToken(); ok {
		t.Error("a Unigram model reports an unk_token; it has only an unk_id")
	}
	wp, err := LoadFile(filepath.Join("testdata", "en_wordpiece", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if tok, id, ok := wp.UnkToken(); !ok || tok != "[UNK]" || wp.Encode("\u2603\u2603")[0] != id {
		t.Errorf("WordPiece UnkToken = %q, %d, %v; want [UNK], the id of an unknown character", tok, id, ok)
	}
	for _, tk := range []*Tokenizer{uni, wp} {
		v := tk.Vocab()
		if len(v) == 0 || len(v) > tk.VocabSize() {
			t.Fatalf("Vocab has %d tokens for VocabSize %d", len(v), tk.VocabSize())
		}
		for i, piece := range v {
			if id, ok := tk.TokenID(piece); !ok || (i > 0 && id <= mustID(t, tk, v[i-1])) {
				t.Fatalf("Vocab[%d] = %q (id %d, %v): not in id order", i, piece, id, ok)
			}
		}
	}
}

func mustID(t *testing.T, tk *Tokenizer, piece string) int {
	t.Helper()
	id, ok := tk.TokenID(piece)
	if !ok {
		t.Fatalf("TokenID(%q) not found", piece)
	}
	return id
}
