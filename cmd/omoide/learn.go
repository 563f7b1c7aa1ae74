package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/cmd/internal/cli"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/ingest"
	"github.com/omoide/omoide/tokenize"
	"github.com/omoide/omoide/transcript"
	"github.com/omoide/omoide/wordvec"
)

const learnDescription = `Learn learns word vectors for the analyzer's terms from conversations and writes them to -o:
PPMI of the terms' co-occurrence in each exchange (message and reply), reduced by a randomized SVD
(package wordvec; docs/quality.md, "Word vectors learned here"). The same input and flags give
the same file, byte for byte.

It reads the files named, in the formats ingest reads (JSON Lines records or transcripts, .gz
too; "-" is standard input), with the analyzer -analyzer names; or, given no file, the store
(-db), with the store's own analyzer. Either way it learns only from the episodes the default
search admits: normal sensitivity, not archived. Private, secret and archived episodes are left
out and counted, never learned from.

Vectors learned from people's conversations keep traces of the words they used, which a forget
does not reach: after a forget, learn again (docs/reliability.md, "Erasure").

`

// learnBatch is how many exchanges learn hands the learner at a time.
const learnBatch = 2048

func runLearn(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("learn", stderr)
	db := fs.String("db", cli.EnvOr(envDB, "omoide.db"), "given no file, learn from this store, a SQLite database `file` (env "+envDB+")")
	out := fs.String("o", "", "write the vectors to this `file` (required)")
	analyzerName := fs.String("analyzer", tokenize.DefaultAnalyzer, "files: the analyzer whose terms get vectors (a store's is its own)")
	format := fs.String("format", "", "files: the input `format`, jsonl or transcript (default: from the file extension)")
	user := fs.String("user", "", "transcript: the person of blocks before any \"# user:\" line")
	usersFile := fs.String("users", "", "learn only from the people named in this `file`, one a line (default: everyone)")
	dim := fs.Int("dim", wordvec.DefaultDim, "dimensions of a vector")
	minCount := fs.Int("min-count", wordvec.DefaultMinCount, "times a term must be seen to get a vector")
	window := fs.Int("window", 0, "count pairs of terms at most `N` apart in an exchange (0: every pair of the exchange)")
	seed := fs.Uint64("seed", wordvec.DefaultSeed, "seed of the random projection")
	setUsage(fs, "omoide learn -o FILE [flags] [FILE|- ...]", learnDescription)
	files, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("%w: -o: name the file to write the vectors to", errUsage)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if len(files) > 0 && given["db"] {
		return fmt.Errorf("%w: -db and files: learn from the store or from files, not both", errUsage)
	}
	if len(files) == 0 && given["analyzer"] {
		return fmt.Errorf("%w: -analyzer: a store is learned with its own analyzer", errUsage)
	}
	if *dim <= 0 || *minCount <= 0 || *window < 0 || *seed == 0 {
		return fmt.Errorf("%w: -dim and -min-count must be positive, -window not negative, -seed not 0", errUsage)
	}
	var fileFormat ingest.Format
	if *format != "" {
		if fileFormat, err = ingest.ParseFormat(*format); err != nil {
			return fmt.Errorf("%w: -%v", errUsage, err)
		}
	}
	var people []string
	if *usersFile != "" {
		if people, err = cli.ReadLines(*usersFile, stdin); err == nil && len(people) == 0 {
			err = fmt.Errorf("%s names no one", *usersFile)
		}
		if err != nil {
			return fmt.Errorf("-users: %w", err)
		}
	}
	opts := wordvec.Options{Dim: *dim, MinCount: *minCount, Window: *window, Seed: *seed}

	start := time.Now()
	var l *omoide.VectorLearner
	if len(files) > 0 {
		a, err := tokenize.ByName(*analyzerName)
		if err != nil {
			return fmt.Errorf("%w: -analyzer: %v", errUsage, err)
		}
		if l, err = omoide.NewVectorLearner(a, opts, people); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if err := learnFiles(ctx, l, files, fileFormat, *user); err != nil {
			return err
		}
	} else {
		if !sqlite.Exists(*db) {
			return fmt.Errorf("no store at %s: name a store with -db or %s, or files to learn from", *db, envDB)
		}
		store, err := sqlite.Open(ctx, *db, sqlite.Options{ReadOnly: true}) // nil embedder: it embeds nothing
		if err != nil {
			return err
		}
		defer store.Close()
		if l, err = omoide.NewVectorLearner(store.Analyzer(), opts, people); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if err := l.ReadStore(ctx, store); err != nil {
			return err
		}
	}
	read := time.Since(start)
	vecs, err := l.Learn(ctx)
	if err != nil {
		return err
	}
	size, err := wordvec.WriteFile(*out, vecs)
	if err != nil {
		return err
	}
	c := l.Counts()
	fmt.Fprintf(stdout, "%d episodes read, %d learned from", c.Read, c.Learned)
	if c.Unsearched > 0 {
		fmt.Fprintf(stdout, ", %d not searched by default left out (private, secret or archived)", c.Unsearched)
	}
	if c.OtherPeople > 0 {
		fmt.Fprintf(stdout, ", %d of people not in -users left out", c.OtherPeople)
	}
	p := vecs.Params()
	fmt.Fprintf(stdout, "\n%d terms of %s, %d dimensions; read in %s, learned in %s\nwrote %s: %d bytes, fingerprint %s\n",
		vecs.Len(), p.Analyzer, p.Dim, read.Round(time.Millisecond), (time.Since(start) - read).Round(time.Millisecond),
		*out, size, vecs.Fingerprint())
	return nil
}

// learnFiles gives l the episodes of files (ingest's formats; f "" from each
// name).
func learnFiles(ctx context.Context, l *omoide.VectorLearner, files []string, f ingest.Format, user string) error {
	in := ingest.New(l, ingest.Options{Batch: learnBatch, Transcript: transcript.Options{User: user}})
	for _, name := range files {
		ff := f
		if ff == "" && name != "-" {
			var err error
			if ff, err = ingest.FormatOf(name); err != nil {
				return fmt.Errorf("%w: %v: give -format jsonl or -format transcript", errUsage, err)
			}
		}
		if err := readInput(ctx, in, name, ff); err != nil {
			return err
		}
	}
	return in.Flush(ctx)
}
