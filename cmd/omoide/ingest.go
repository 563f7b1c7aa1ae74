package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/omoide/omoide/cmd/internal/cli"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/ingest"
	"github.com/omoide/omoide/internal/wire"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/transcript"
)

const ingestDescription = `Ingest adds episodes to the store from JSON Lines files or conversation transcripts; FILE "-"
reads standard input. It is idempotent: an episode whose (user, external id) the store already
holds is not added again, so re-ingesting a file adds nothing.

The format comes from -format or the file name: .jsonl, .ndjson and .json are JSON Lines, .txt
is a transcript, and a further .gz means gzip. Standard input is sniffed (gzip, then '{' for JSON
Lines, anything else a transcript).

JSON Lines: one episode a line, as in the evaluation suites:

  {"id": "haruka:001", "user": "haruka", "user_text": "...", "reply_text": "...",
   "occurred_at": "2025-06-01T12:30:00Z", "source": "chat"}

id (the external id) is required; source, kind (episode|fact|summary|loop or a number), state
(raw|validated|consolidated|archived) and sensitivity (normal|private|secret) are optional;
unknown fields are an error. Every kind is searched by default; private and secret episodes and
archived ones are not, unless a request's filter admits them (the summary counts them). The
text must be UTF-8 (other encodings are refused, not converted), and an episode's user_text and
reply_text hold at most 16384 bytes together. With -skip-bad, bad lines are reported and skipped,
the others stored, and the exit status is 1 if any was skipped.

`

func runIngest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ingest", stderr)
	sc := addStoreFlags(fs)
	format := fs.String("format", "", "the input `format`: jsonl or transcript (default: from the file extension)")
	batch := fs.Int("batch", ingest.DefaultBatch, "episodes per store transaction")
	showProgress := fs.Bool("progress", false, "draw the progress bar on stderr even when it is not a terminal")
	update := fs.Bool("update", false, "replace an episode stored under the same user and id with other content (without it, such a line is an error)")
	skipBad := fs.Bool("skip-bad", false, "count malformed lines (transcript: blocks) and go on, instead of stopping at the first")
	user := fs.String("user", "", "transcript: the person of blocks before any \"# user:\" line")
	tz := fs.String("tz", "", "transcript: the time `zone` of timestamps without a UTC offset, e.g. Asia/Tokyo")
	setUsage(fs, "omoide ingest [flags] FILE|- ...", ingestDescription+transcript.Format)
	files, err := sc.parseArgs(args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%w: no input: name a file, or - for standard input", errUsage)
	}
	var flagFormat ingest.Format
	if *format != "" {
		if flagFormat, err = ingest.ParseFormat(*format); err != nil {
			return fmt.Errorf("%w: -%v", errUsage, err)
		}
	}
	if *batch <= 0 {
		return fmt.Errorf("%w: -batch %d: must be positive", errUsage, *batch)
	}
	opts := ingest.Options{Batch: *batch, Replace: *update, SkipBad: *skipBad, Transcript: transcript.Options{User: *user}}
	if *tz != "" {
		if opts.Transcript.Location, err = time.LoadLocation(*tz); err != nil {
			return fmt.Errorf("%w: -tz: %v", errUsage, err)
		}
	}
	formats, err := inputFormats(files, flagFormat)
	if err != nil {
		return err
	}

	mem, err := sc.openMemory(ctx, false, memorypack.Options{})
	if err != nil {
		return err
	}
	defer mem.Close()

	start := time.Now()
	progress := *showProgress || cli.IsTerminal(stderr)
	total := 0
	if progress {
		total = countRecords(files, formats)
	}
	bar := cli.NewProgressBar(stderr, progress, total)
	filter := mem.Retriever.Options().Filter
	opts.Unsearched = func(e episode.Episode) bool { return wire.Unsearched(filter, []episode.Episode{e}) > 0 }
	opts.Stored = bar.Update
	opts.Bad = reportBad(stderr, bar)
	in := ingest.New(mem, opts)
	runErr := ingestFiles(ctx, in, files, formats)
	r := in.Result()
	bar.Finish(r.Read)
	elapsed := time.Since(start)
	replaced := ""
	if *update {
		replaced = fmt.Sprintf(", %d replaced", r.Replaced)
	}
	fmt.Fprintf(stdout, "%d episodes read, %d added%s, %d already present, %d failed lines, %s, %s episodes/s\n",
		r.Read, r.Added, replaced, r.Present, r.Skipped, elapsed.Round(time.Millisecond), cli.Rate(r.Read, elapsed))
	if r.Unsearched > 0 {
		fmt.Fprintf(stdout, "%d of the episodes read are not searched by default (private, secret or archived); a request's filter admits them (retrieve -max-sensitivity, -states; omoide stats)\n", r.Unsearched)
	}
	if runErr == nil && r.Skipped > 0 {
		runErr = fmt.Errorf("%d bad lines skipped (-skip-bad); the others are stored", r.Skipped)
	}
	return runErr
}

// inputFormats returns the format of each input: f when given; else, for a
// file, what its name says (an input that does not exist is an error), and
// for standard input "", which sniffs it.
func inputFormats(files []string, f ingest.Format) ([]ingest.Format, error) {
	formats := make([]ingest.Format, len(files))
	for i, name := range files {
		formats[i] = f
		if name == "-" || f != "" {
			continue // standard input is sniffed
		}
		var err error
		if formats[i], err = ingest.FormatOf(name); err != nil {
			return nil, fmt.Errorf("%w: %v: give -format jsonl or -format transcript", errUsage, err)
		}
		if _, err := os.Stat(name); err != nil {
			return nil, err
		}
	}
	return formats, nil
}

// reportBad returns ingest's Options.Bad for -skip-bad: it reports the first
// maxReported skipped lines on stderr, over the progress bar.
func reportBad(stderr io.Writer, bar *cli.ProgressBar) func(where string, err error) {
	skipped := 0
	return func(where string, err error) {
		cr := ""
		if bar.On {
			cr = "\r" // over the progress bar
		}
		if skipped++; skipped <= maxReported {
			fmt.Fprintf(stderr, "%somoide ingest: skipped %s: %v\n", cr, where, err)
		} else if skipped == maxReported+1 {
			fmt.Fprintf(stderr, "%somoide ingest: more bad lines skipped; the summary counts them\n", cr)
		}
	}
}

// ingestFiles reads the inputs into in and stores what is left; an input's
// error says how to go on past it.
func ingestFiles(ctx context.Context, in *ingest.Ingester, files []string, formats []ingest.Format) error {
	for i, name := range files {
		if err := readInput(ctx, in, name, formats[i]); err != nil {
			if !errors.Is(err, ingest.ErrStore) && ctx.Err() == nil {
				err = fmt.Errorf("%w (fix it, or pass -skip-bad to skip bad lines)", err)
			}
			return err
		}
	}
	return in.Flush(ctx)
}

// maxReported is how many skipped lines -skip-bad reports one by one.
const maxReported = 20

// readInput reads one input ("-": standard input) into in.
func readInput(ctx context.Context, in *ingest.Ingester, name string, f ingest.Format) error {
	if name == "-" {
		return in.Read(ctx, "stdin", stdin, f)
	}
	return in.ReadFile(ctx, name, f)
}

// countRecords counts the episodes of files for the progress bar: 0 when one
// is standard input or cannot be counted.
func countRecords(files []string, formats []ingest.Format) int {
	total := 0
	for i, name := range files {
		if name == "-" {
			return 0
		}
		n, err := ingest.CountFile(name, formats[i])
		if err != nil {
			return 0
		}
		total += n
	}
	return total
}
