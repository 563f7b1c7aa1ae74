// Command wvreport measures a word vector file as docs/quality.md reports
// it ("Word vectors learned here"): its load time and the memory it holds,
// a table of the nearest neighbours of words (each by the analyzer's term),
// and the coverage of episode files: the share of the distinct analyzer
// terms of their episodes that have a vector.
//
// Usage:
//
//	go run -tags sqlite_fts5 ./wordvec/internal/wvreport -vectors FILE [-words 犬,猫] [-k 5] [EPISODES.jsonl[.gz] ...]
package main

import (
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/tokenize"
	"github.com/omoide/omoide/wordvec"
)

// everyday are the words of the neighbour table unless -words names others.
const everyday = "バイト,アルバイト,犬,猫,雨,映画,仕事,旅行,京都,ラーメン,学校,母,誕生日,病院,野球,音楽,電車,夏,料理,本,彼氏,会社,海,引っ越し,試験,風邪,ゲーム,買い物,写真,温泉"

func main() {
	path := flag.String("vectors", "", "the vector `file` (omoide learn -o)")
	words := flag.String("words", everyday, "comma-separated words of the neighbour table")
	k := flag.Int("k", 5, "neighbours a word")
	flag.Parse()
	if err := run(context.Background(), *path, strings.Split(*words, ","), *k, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wvreport:", err)
		os.Exit(1)
	}
}

// run writes the report.
func run(ctx context.Context, path string, words []string, k int, episodeFiles []string, w io.Writer) error {
	if path == "" {
		return errors.New("-vectors: name the vector file")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	v, err := wordvec.Read(f)
	f.Close()
	if err != nil {
		return err
	}
	load := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	p := v.Params()
	fmt.Fprintf(w, "%s: %d terms of %s, %d dimensions, from %d exchanges; fingerprint %s\n", path, v.Len(), p.Analyzer, v.Dim(), p.Exchanges, v.Fingerprint())
	fmt.Fprintf(w, "load %s, heap held %.1f MB\n\n", load.Round(time.Millisecond), float64(after.HeapAlloc-before.HeapAlloc)/1e6)
	a, err := tokenize.ByName(p.Analyzer)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "| word | term | seen | nearest %d (cosine) |\n|---|---|---:|---|\n", k)
	for _, word := range words {
		term := termOf(a, word)
		switch {
		case term == "":
			fmt.Fprintf(w, "| %s | %s | | no term |\n", word, a.Index(word))
		case v.Count(term) == 0:
			fmt.Fprintf(w, "| %s | %s | | no vector |\n", word, term)
		default:
			var near []string
			for _, n := range v.Nearest(term, k) {
				near = append(near, fmt.Sprintf("%s %.2f", n.Term, n.Cosine))
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s |\n", word, term, v.Count(term), strings.Join(near, ", "))
		}
	}
	for _, name := range episodeFiles {
		c, err := coverage(ctx, name, a, v)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\ncoverage of %s: %d of %d distinct terms (%.3f); %d of %d term occurrences (%.3f)\n", name,
			c.covered, c.distinct, float64(c.covered)/float64(max(1, c.distinct)),
			c.coveredTokens, c.tokens, float64(c.coveredTokens)/float64(max(1, c.tokens)))
	}
	return nil
}

// termOf returns the analyzer's term for a word: the term of its Index
// spelled as the word is (a kanji compound is indexed with its characters
// too: 映画 as 映画 映 画), else its first (誕生日 is 誕生 生日 誕 生 日:
// 誕生); "" when it has none.
func termOf(a tokenize.Analyzer, word string) string {
	terms := strings.Fields(a.Index(word))
	for _, t := range terms {
		if t == word {
			return t
		}
	}
	if len(terms) == 0 {
		return ""
	}
	return terms[0]
}

// termCoverage counts the terms of episodes and those that have a vector:
// distinct terms, and occurrences.
type termCoverage struct {
	distinct, covered     int
	tokens, coveredTokens int
}

// coverage counts the terms of the episodes of a file (user and reply text,
// as the index holds them) that have a vector.
func coverage(ctx context.Context, name string, a tokenize.Analyzer, v *wordvec.Vectors) (termCoverage, error) {
	var c termCoverage
	f, err := os.Open(name)
	if err != nil {
		return c, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return c, fmt.Errorf("%s: %w", name, err)
		}
		r = gz
	}
	seen := map[string]int{}
	err = episode.ReadRecords(ctx, r, func(line int, rec episode.Record, err error) error {
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		for _, text := range []string{rec.UserText, rec.ReplyText} {
			for t := range strings.FieldsSeq(a.Index(text)) {
				seen[t]++
			}
		}
		return nil
	})
	for t, n := range seen {
		c.distinct++
		c.tokens += n
		if v.Count(t) > 0 {
			c.covered++
			c.coveredTokens += n
		}
	}
	return c, err
}
