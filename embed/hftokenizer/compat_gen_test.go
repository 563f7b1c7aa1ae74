package hftokenizer

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"strconv"
	"testing"
	"unicode"
)

var compatProbe = flag.String("compat-probe", "", "regenerate compat_tables.go from this unicode_probe.js output")

// unicodeProbe is what testdata/gen/unicode_probe.js reports of the reference.
type unicodeProbe struct {
	NFD, NFKD, NFC, NFKC, Lower, CCC              map[string]string
	RemovedByClean, NonspacingMark, CombiningMark [][2]rune
	Whitespace, Punctuation, Numeric, Word        [][2]rune
	Joins                                         map[string][][2]rune
}

func (p *unicodeProbe) get(m map[string]string, r rune, def string) string {
	if v, ok := m[strconv.Itoa(int(r))]; ok {
		return v
	}
	return def
}

func inRanges(rs [][2]rune) map[rune]bool {
	m := map[rune]bool{}
	for _, r := range rs {
		for c := r[0]; c <= r[1]; c++ {
			m[c] = true
		}
	}
	return m
}

func runNorm(s string, f func(*normString)) string {
	n := newNormString(s)
	f(n)
	return n.norm
}

// compatDiffs compares the Go side with the probe, code point by code point,
// and returns the code points to correct per table.
func compatDiffs(p *unicodeProbe) map[string][]rune {
	clean, mn, mark := inRanges(p.RemovedByClean), inRanges(p.NonspacingMark), inRanges(p.CombiningMark)
	space, punct, num, word := inRanges(p.Whitespace), inRanges(p.Punctuation), inRanges(p.Numeric), inRanges(p.Word)
	joinA := inRanges(p.Joins["a"])
	d := map[string][]rune{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		c := string(r)
		refNFD := p.get(p.NFD, r, c)
		if runNorm(c, func(n *normString) { n.unicodeNormalize(false, false) }) != refNFD ||
			runNorm(c, func(n *normString) { n.unicodeNormalize(false, true) }) != p.get(p.NFKD, r, c) ||
			runNorm(c, func(n *normString) { n.unicodeNormalize(true, false) }) != p.get(p.NFC, r, c) ||
			runNorm(c, func(n *normString) { n.unicodeNormalize(true, true) }) != p.get(p.NFKC, r, c) ||
			runNorm("a"+c+"\u0334", func(n *normString) { n.unicodeNormalize(false, false) }) != p.get(p.CCC, r, "a"+refNFD+"\u0334") {
			d["norm"] = append(d["norm"], r)
		}
		if runNorm(c, lowercaseNormalizer{}.normalize) != p.get(p.Lower, r, c) {
			d["lower"] = append(d["lower"], r)
		}
		if isBertRemoved(r) != clean[r] {
			d["clean"] = append(d["clean"], r)
		}
		if refNFD == c && isNonspacingMark(r) != mn[r] {
			d["mn"] = append(d["mn"], r)
		}
		if isCombiningMark(r) != mark[r] {
			d["mark"] = append(d["mark"], r)
		}
		if isRustWhitespace(r) != space[r] {
			d["space"] = append(d["space"], r)
		}
		if isPunctuation(r) != punct[r] {
			d["punct"] = append(d["punct"], r)
		}
		if isNumeric(r) != num[r] {
			d["num"] = append(d["num"], r)
		}
		if isWordChar(r) != word[r] {
			d["word"] = append(d["word"], r)
		}
		if s := "a" + c; len(s) < 6 && (nextGrapheme(s) == len(s)) != joinA[r] {
			if joinA[r] {
				d["extend"] = append(d["extend"], r)
			} else {
				d["notExtend"] = append(d["notExtend"], r)
			}
		}
	}
	for _, base := range []string{"\r", "\u0600"} {
		joins := inRanges(p.Joins[base])
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if s := base + string(r); len(s) < 6 && !(r >= 0xD800 && r <= 0xDFFF) && (nextGrapheme(s) == len(s)) != joins[r] {
				d["graphemeOther"] = append(d["graphemeOther"], r)
			}
		}
	}
	return d
}

func toPairs(rs []rune) [][2]rune {
	var out [][2]rune
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1][1] == r-1 {
			out[n-1][1] = r
		} else {
			out = append(out, [2]rune{r, r})
		}
	}
	return out
}

// TestGenerateCompatTables rewrites compat_tables.go from a probe of the
// reference (see testdata/gen/README.md), then checks that every code point
// now behaves as the reference does:
//
//	go test -tags sqlite_fts5 ./embed/hftokenizer/ -run TestGenerateCompatTables -compat-probe=testdata/gen/unicode_probe.json
func TestGenerateCompatTables(t *testing.T) {
	if *compatProbe == "" {
		t.Skip("needs -compat-probe")
	}
	raw, err := os.ReadFile(*compatProbe)
	if err != nil {
		t.Fatal(err)
	}
	var p unicodeProbe
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	tables := map[string]**unicode.RangeTable{
		"norm": &compatNoNorm, "clean": &compatCleanFlip, "mn": &compatMnFlip, "mark": &compatMarkFlip,
		"space": &compatSpaceFlip, "punct": &compatPunctFlip, "num": &compatNumFlip, "word": &compatWordFlip,
		"extend": &compatExtend, "notExtend": &compatNotExtend,
	}
	for _, tab := range tables {
		*tab = newRangeTable(nil)
	}
	compatLower = map[rune]string{}
	d := compatDiffs(&p)
	if len(d["graphemeOther"]) > 0 {
		t.Fatalf("grapheme differences not explained by Extend: %U", d["graphemeOther"])
	}
	for _, r := range d["norm"] {
		for _, m := range []map[string]string{p.NFD, p.NFKD, p.NFC, p.NFKC, p.CCC} {
			if _, ok := m[strconv.Itoa(int(r))]; ok {
				t.Fatalf("%U: the reference normalizes it, which compatNoNorm cannot express", r)
			}
		}
	}
	names := []struct{ key, name, doc string }{
		{"norm", "compatNoNorm", "chars the crate's Unicode 9 normalization tables do not know: no decomposition, class 0, never composed"},
		{"clean", "compatCleanFlip", "chars whose BertNormalizer clean_text removal differs from Go's categories"},
		{"mn", "compatMnFlip", "chars whose Mn category differs from Go's"},
		{"mark", "compatMarkFlip", "chars whose M category (StripAccents) differs from Go's"},
		{"space", "compatSpaceFlip", "chars whose White_Space property differs from Go's"},
		{"punct", "compatPunctFlip", "chars whose punctuation test differs from Go's"},
		{"num", "compatNumFlip", "chars whose is_numeric differs from Go's"},
		{"word", "compatWordFlip", `chars whose regex \w class differs from Go's`},
		{"extend", "compatExtend", "chars the crate's grapheme rules treat as Extend although Go's tables do not"},
		{"notExtend", "compatNotExtend", "chars Go's tables make Extend or SpacingMark but the crate's grapheme rules do not"},
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by TestGenerateCompatTables; DO NOT EDIT.\n\n")
	b.WriteString("package hftokenizer\n\n")
	b.WriteString("// Corrections to Go's Unicode tables measured on the reference (tokenizers\n")
	b.WriteString("// 0.23.2, see testdata/gen): its crates use Unicode 9 normalization and\n")
	b.WriteString("// older categories, and a newer Rust standard library and regex crate.\n\n")
	b.WriteString("var (\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\t// %s are %s.\n\t%s = newRangeTable([][2]rune{", n.name, n.doc, n.name)
		for i, pr := range toPairs(d[n.key]) {
			if i%6 == 0 {
				b.WriteString("\n\t\t")
			}
			fmt.Fprintf(&b, "{%#x, %#x}, ", pr[0], pr[1])
		}
		b.WriteString("\n\t})\n\n")
	}
	b.WriteString("\t// compatLower maps chars whose Rust to_lowercase differs from Go's.\n\tcompatLower = map[rune]string{\n")
	for _, r := range d["lower"] {
		fmt.Fprintf(&b, "\t\t%#x: %q,\n", r, p.get(p.Lower, r, string(r)))
	}
	b.WriteString("\t}\n)\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.Bytes())
	}
	if err := os.WriteFile("compat_tables.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
	// Apply the new tables and check that nothing differs any more.
	for _, n := range names {
		*tables[n.key] = newRangeTable(toPairs(d[n.key]))
	}
	for _, r := range d["lower"] {
		compatLower[r] = p.get(p.Lower, r, string(r))
	}
	for k, v := range compatDiffs(&p) {
		if len(v) > 0 {
			t.Errorf("%s: %d code points still differ, first %U", k, len(v), v[0])
		}
	}
}
