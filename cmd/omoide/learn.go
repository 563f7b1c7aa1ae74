package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/omoide/omoide/cmd/internal/cli"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/ingest"
	"github.com/omoide/omoide/retriever"
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
	var people map[string]bool
	if *usersFile != "" {
		if people, err = readPeople(*usersFile); err != nil {
			return fmt.Errorf("-users: %w", err)
		}
	}
	opts := wordvec.Options{Dim: *dim, MinCount: *minCount, Window: *window, Seed: *seed}

	start := time.Now()
	var sink *learnSink
	if len(files) > 0 {
		a, err := tokenize.ByName(*analyzerName)
		if err != nil {
			return fmt.Errorf("%w: -analyzer: %v", errUsage, err)
		}
		if sink, err = newLearnSink(a, opts, people); err != nil {
			return err
		}
		if err := sink.readFiles(ctx, files, fileFormat, *user); err != nil {
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
		if sink, err = newLearnSink(store.Analyzer(), opts, people); err != nil {
			return err
		}
		if err := sink.readStore(ctx, store); err != nil {
			return err
		}
	}
	read := time.Since(start)
	vecs, err := sink.learner.Learn(ctx)
	if err != nil {
		return fmt.Errorf("learning from %d exchanges: %w", sink.learned, err)
	}
	size, err := writeVectors(*out, vecs)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d episodes read, %d learned from", sink.read, sink.learned)
	if sink.unsearched > 0 {
		fmt.Fprintf(stdout, ", %d not searched by default left out (private, secret or archived)", sink.unsearched)
	}
	if sink.otherPeople > 0 {
		fmt.Fprintf(stdout, ", %d of people not in -users left out", sink.otherPeople)
	}
	p := vecs.Params()
	fmt.Fprintf(stdout, "\n%d terms of %s, %d dimensions; read in %s, learned in %s\nwrote %s: %d bytes, fingerprint %s\n",
		vecs.Len(), p.Analyzer, p.Dim, read.Round(time.Millisecond), (time.Since(start) - read).Round(time.Millisecond),
		*out, size, vecs.Fingerprint())
	return nil
}

// learnSink hands the episodes the default search admits to a learner, in
// batches; as an ingest.Storer it takes them from ingest's readers.
type learnSink struct {
	learner *wordvec.Learner
	filter  retriever.Filter // the default search's
	people  map[string]bool  // nil: everyone
	batch   []wordvec.Exchange

	read, learned, unsearched, otherPeople int
}

// newLearnSink returns a sink learning with a and opts from the episodes of
// people (nil: everyone).
func newLearnSink(a tokenize.Analyzer, opts wordvec.Options, people map[string]bool) (*learnSink, error) {
	l, err := wordvec.NewLearner(a, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	return &learnSink{learner: l, filter: retriever.DefaultOptions().Filter, people: people}, nil
}

// Put takes a batch of episodes: those the default search admits, of the
// people learned from, are learned from; the others are counted.
func (s *learnSink) Put(ctx context.Context, _ bool, eps ...episode.Episode) (episode.PutResult, error) {
	for _, e := range eps {
		s.read++
		switch {
		case !s.filter.Admits(cmp.Or(e.Kind, episode.KindEpisode), e.State, e.Sensitivity):
			s.unsearched++
		case s.people != nil && !s.people[e.User]:
			s.otherPeople++
		default:
			s.learned++
			s.batch = append(s.batch, wordvec.Exchange{Message: e.UserText, Reply: e.ReplyText})
		}
	}
	if err := s.flush(ctx); err != nil {
		return episode.PutResult{}, err
	}
	return episode.PutResult{Added: len(eps)}, nil
}

// flush hands the batch to the learner.
func (s *learnSink) flush(ctx context.Context) error {
	if len(s.batch) == 0 {
		return nil
	}
	err := s.learner.Add(ctx, s.batch...)
	s.batch = s.batch[:0]
	return err
}

// readFiles reads files (ingest's formats; f "" from each name) into the
// sink.
func (s *learnSink) readFiles(ctx context.Context, files []string, f ingest.Format, user string) error {
	in := ingest.New(s, ingest.Options{Batch: learnBatch, Transcript: transcript.Options{User: user}})
	for _, name := range files {
		ff := f
		if ff == "" && name != "-" {
			var err error
			if ff, err = ingest.FormatOf(name); err != nil {
				return fmt.Errorf("%w: %v: give -format jsonl or -format transcript", errUsage, err)
			}
		}
		r, shown, err := openInput(name)
		if err != nil {
			return err
		}
		err = in.Read(ctx, shown, r, ff)
		r.Close()
		if err != nil {
			return err
		}
	}
	return in.Flush(ctx)
}

// storePage is how many people or episodes readStore reads at a time.
const storePage = 1000

// readStore reads every person's episodes of store into the sink, page by
// page, in the store's order.
func (s *learnSink) readStore(ctx context.Context, store *sqlite.Store) error {
	for after := ""; ; {
		people, err := store.People(ctx, after, storePage)
		if err != nil {
			return err
		}
		for _, p := range people {
			for id := int64(0); ; {
				eps, err := store.Episodes(ctx, p.User, id, storePage)
				if err != nil {
					return err
				}
				if _, err := s.Put(ctx, false, eps...); err != nil {
					return err
				}
				if len(eps) < storePage {
					break
				}
				id = eps[len(eps)-1].ID
			}
		}
		if len(people) < storePage {
			return nil
		}
		after = people[len(people)-1].User
	}
}

// readPeople reads a file of people's names, one a line; blank lines are
// skipped, and a name is taken as it is written (no trimming but of the
// line ending).
func readPeople(name string) (map[string]bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	people := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSuffix(sc.Text(), "\r"); line != "" {
			people[line] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(people) == 0 {
		return nil, fmt.Errorf("%s names no one", name)
	}
	return people, nil
}

// writeVectors writes vecs to name through a temporary file renamed into
// place, so that a failed run leaves no partial file, and returns its size.
func writeVectors(name string, vecs *wordvec.Vectors) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+".*.tmp")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing to remove
	werr := vecs.Write(tmp)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return 0, fmt.Errorf("writing %s: %w", name, werr)
	}
	st, err := os.Stat(tmp.Name())
	if err != nil {
		return 0, err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return 0, errors.Join(fmt.Errorf("writing %s", name), err)
	}
	return st.Size(), nil
}
