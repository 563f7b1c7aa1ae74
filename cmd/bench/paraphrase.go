package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/internal/paraphrase"
	"github.com/omoide/omoide/synonym"
	"github.com/omoide/omoide/thesaurus"
)

// runParaphrase writes a suite of paraphrase labels (internal/paraphrase)
// made from the haystack's exchanges: episodes.jsonl, queries.jsonl and a
// README saying how and under which licences.
func runParaphrase(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("paraphrase", stderr)
	haystack := fs.String("haystack", defaultHaystack, "the exchanges to make people of (JSON Lines, gzip when .gz): RealPersonaChat, the suite that may be learned from")
	out := fs.String("o", "", "write the suite to this `folder` (required)")
	var o paraphrase.Options
	fs.IntVar(&o.People, "people", paraphrase.DefaultPeople, "synthetic people, each one speaker's exchanges")
	fs.IntVar(&o.Memories, "memories", paraphrase.DefaultMemories, "memories of each person")
	fs.Uint64Var(&o.Seed, "seed", 1, "the draw: the same seed and haystack write the same suite")
	users := fs.String("users", "", "draw only the speakers listed in this `file`, one a line (e.g. those the vectors were not learned from)")
	syn := fs.Bool("synonyms", true, "also ask by SudachiDict's synonyms (package synonym), not only by the thesaurus's equivalents")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("%w: -o: give the folder to write the suite to", errUsage)
	}
	keep, err := speakerList(*users)
	if err != nil {
		return err
	}
	st, n, err := writeParaphrase(*haystack, *out, o, keep, *syn, "bench paraphrase "+strings.Join(args, " "))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d people of %d speakers, %d episodes, %d queries (%s)\n", *out, st.People, st.Speakers, st.Episodes, n, categoryCounts(st))
	return nil
}

// writeParaphrase makes a suite of paraphrase labels from the haystack's
// exchanges (only the speakers keep lists, when not nil) and writes it to
// out: episodes.jsonl, queries.jsonl and a README saying how (command) and
// under which licences. It returns what was made and the number of queries.
func writeParaphrase(haystack, out string, o paraphrase.Options, keep map[string]bool, synonyms bool, command string) (paraphrase.Stats, int, error) {
	var exchanges []dataset.Episode
	err := dataset.EachInFile(haystack, func(e dataset.Episode) error {
		if e.User == "" {
			return errors.New("an exchange with no user")
		}
		if keep == nil || keep[e.User] {
			exchanges = append(exchanges, e)
		}
		return nil
	})
	if err != nil {
		return paraphrase.Stats{}, 0, fmt.Errorf("-haystack: %w", err)
	}
	if o.Thesaurus, err = thesaurus.Default(); err != nil {
		return paraphrase.Stats{}, 0, err
	}
	if synonyms {
		o.Synonyms = synonym.Of
	}
	eps, qs, st, err := paraphrase.Generate(exchanges, o)
	if err != nil {
		return st, 0, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return st, 0, err
	}
	if err := writeJSONL(filepath.Join(out, "episodes.jsonl"), eps); err != nil {
		return st, 0, err
	}
	if err := writeJSONL(filepath.Join(out, "queries.jsonl"), qs); err != nil {
		return st, 0, err
	}
	readme := fmt.Sprintf(paraphraseReadme, command, commit(), st.People, st.Episodes, len(qs), categoryCounts(st))
	return st, len(qs), os.WriteFile(filepath.Join(out, "README.md"), []byte(readme), 0o644)
}

// categoryCounts says how many queries of each category st counts, sorted.
func categoryCounts(st paraphrase.Stats) string {
	cats := make([]string, 0, len(st.Queries))
	for c, n := range st.Queries {
		cats = append(cats, fmt.Sprintf("%s %d", c, n))
	}
	slices.Sort(cats)
	return strings.Join(cats, ", ")
}

// speakerList reads a file of speaker names, one a line; nil for "".
func speakerList(path string) (map[string]bool, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-users: %w", err)
	}
	m := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			m[l] = true
		}
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("-users %s: no speaker listed", path)
	}
	return m, nil
}

// paraphraseReadme is the generated suite's README.
const paraphraseReadme = `# paraphrase labels (generated; not for the repository)

Made by ` + "`%s`" + ` at %s (internal/paraphrase; the recipe: docs/quality.md, "Paraphrase labels made here").
%d synthetic people, %d episodes, %d queries: %s.

Each person is one speaker's exchanges of RealPersonaChat (nu-dialogue/real-persona-chat, CC BY-SA 4.0; Yamashita et
al., PACLIC 2023): this suite is an adaptation of it under CC BY-SA 4.0. Never try to identify the speakers, never
impersonate them. The questions' words come from package thesaurus (JMdict/EDICT of the EDRDG, CC BY-SA 3.0, and
Princeton WordNet 3.0) and package synonym (SudachiDict, Apache License 2.0).
`
