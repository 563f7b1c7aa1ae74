package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/cmd/internal/cli"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/wire"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/transcript"
)

// Input formats of ingest.
const (
	formatJSONL      = "jsonl"
	formatTranscript = "transcript"
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
	batch := fs.Int("batch", 500, "episodes per store transaction")
	showProgress := fs.Bool("progress", false, "draw the progress bar on stderr even when it is not a terminal")
	update := fs.Bool("update", false, "replace an episode stored under the same user and id with other content (without it, such a line is an error)")
	skipBad := fs.Bool("skip-bad", false, "count malformed lines (transcript: blocks) and go on, instead of stopping at the first")
	user := fs.String("user", "", "transcript: the person of blocks before any \"# user:\" line")
	tz := fs.String("tz", "", "transcript: the time `zone` of timestamps without a UTC offset, e.g. Asia/Tokyo")
	setUsage(fs, "omoide ingest [flags] FILE|- ...", ingestDescription+transcript.Format)
	files, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := sc.validate(); err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%w: no input: name a file, or - for standard input", errUsage)
	}
	if *format != "" && *format != formatJSONL && *format != formatTranscript {
		return fmt.Errorf("%w: -format %q: want jsonl or transcript", errUsage, *format)
	}
	if *batch <= 0 {
		return fmt.Errorf("%w: -batch %d: must be positive", errUsage, *batch)
	}
	topts := transcript.Options{User: *user}
	if *tz != "" {
		if topts.Location, err = time.LoadLocation(*tz); err != nil {
			return fmt.Errorf("%w: -tz: %v", errUsage, err)
		}
	}
	formats := make([]string, len(files))
	for i, f := range files {
		if formats[i], err = formatOf(f, *format); err != nil {
			return err
		}
		if f != "-" {
			if _, err := os.Stat(f); err != nil {
				return err
			}
		}
	}

	mem, err := sc.openMemory(ctx, false, memorypack.Options{})
	if err != nil {
		return err
	}
	defer mem.Close()

	in := &ingester{mem: mem, batch: *batch, skipBad: *skipBad, update: *update, stderr: stderr, start: time.Now()}
	progress := *showProgress || isTerminal(stderr)
	total := 0
	if progress {
		for i, f := range files {
			n, err := countRecords(f, formats[i])
			if err != nil {
				total = 0
				break
			}
			total += n
		}
	}
	in.bar = newProgressBar(stderr, progress, total)
	var runErr error
	for i, f := range files {
		if runErr = in.file(ctx, f, formats[i], topts); runErr != nil {
			break
		}
	}
	if runErr == nil {
		runErr = in.flush(ctx)
	} else if ctx.Err() == nil && !errors.Is(runErr, errStoreFailed) {
		// Stopped at a bad line: keep what came before it.
		if err := in.flush(ctx); err != nil {
			runErr = errors.Join(runErr, err)
		}
	}
	in.bar.finish(in.read)
	elapsed := time.Since(in.start)
	replaced := ""
	if in.update {
		replaced = fmt.Sprintf(", %d replaced", in.replaced)
	}
	fmt.Fprintf(stdout, "%d episodes read, %d added%s, %d already present, %d failed lines, %s, %s episodes/s\n",
		in.read, in.added, replaced, in.present, in.failed, elapsed.Round(time.Millisecond), rate(in.read, elapsed))
	if in.unsearched > 0 {
		fmt.Fprintf(stdout, "%d of the episodes read are not searched by default (private, secret or archived); a request's filter admits them (retrieve -max-sensitivity, -states; omoide stats)\n", in.unsearched)
	}
	if runErr == nil && in.failed > 0 {
		runErr = fmt.Errorf("%d bad lines skipped (-skip-bad); the others are stored", in.failed)
	}
	return runErr
}

// errStoreFailed marks a failure of the store (not of the input).
var errStoreFailed = errors.New("store failed")

// formatOf returns the format of file name: flagFormat when set, else from
// the extension; "" for standard input (sniffed later).
func formatOf(name, flagFormat string) (string, error) {
	if flagFormat != "" || name == "-" {
		return flagFormat, nil
	}
	lower := strings.TrimSuffix(strings.ToLower(name), ".gz")
	switch {
	case strings.HasSuffix(lower, ".jsonl"), strings.HasSuffix(lower, ".ndjson"), strings.HasSuffix(lower, ".json"):
		return formatJSONL, nil
	case strings.HasSuffix(lower, ".txt"):
		return formatTranscript, nil
	}
	return "", fmt.Errorf("%w: %s: cannot tell the format from the name (.jsonl, .jsonl.gz or .txt): give -format jsonl or -format transcript", errUsage, name)
}

// openInput opens a file ("-": standard input), decompressing gzip, and
// resolves the format "" by sniffing.
func openInput(name, format string) (io.Reader, string, func() error, error) {
	var r io.Reader
	closeFn := func() error { return nil }
	if name == "-" {
		r = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, "", nil, err
		}
		r, closeFn = f, f.Close
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			closeFn()
			return nil, "", nil, fmt.Errorf("%s: %w", name, err)
		}
		fileClose := closeFn
		closeFn = func() error { gz.Close(); return fileClose() }
		br = bufio.NewReaderSize(gz, 64<<10)
	}
	if format == "" {
		format = formatTranscript
		for i := 1; ; i++ {
			b, err := br.Peek(i)
			if err != nil || i > 4096 {
				break
			}
			if c := b[i-1]; c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != 0xef && c != 0xbb && c != 0xbf {
				if c == '{' {
					format = formatJSONL
				}
				break
			}
		}
	}
	return br, format, closeFn, nil
}

// countRecords counts the episodes of a file for the progress bar: its
// non-blank lines (jsonl) or its "@" lines (transcript). Standard input is
// not counted.
func countRecords(name, format string) (int, error) {
	if name == "-" {
		return 0, errors.New("standard input")
	}
	r, format, closeFn, err := openInput(name, format)
	if err != nil {
		return 0, err
	}
	defer closeFn()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	n := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if format == formatTranscript && len(line) > 0 && line[0] == '@' || format == formatJSONL && len(line) > 0 {
			n++
		}
	}
	return n, sc.Err()
}

// ingester batches episodes into the store and keeps the counts.
type ingester struct {
	mem     *omoide.Memory
	batch   int
	skipBad bool
	update  bool // -update: replace an episode stored with other content (Memory.Put)
	stderr  io.Writer
	bar     *progressBar
	start   time.Time

	pending   []episode.Episode
	where     string // where the pending batch starts, for errors
	lastWhere string

	read, added, replaced, present, failed int
	unsearched                             int // episodes read that the default filter leaves out
}

// maxReported is how many skipped lines -skip-bad reports one by one.
const maxReported = 20

// file ingests one input.
func (in *ingester) file(ctx context.Context, name, format string, topts transcript.Options) error {
	r, format, closeFn, err := openInput(name, format)
	if err != nil {
		return err
	}
	defer closeFn()
	shown := name
	if name == "-" {
		shown = "stdin"
	}
	emit := func(line int, e episode.Episode) error {
		return in.add(ctx, fmt.Sprintf("%s:%d", shown, line), e)
	}
	bad := func(line int, err error) error {
		where := fmt.Sprintf("%s:%d", shown, line)
		if !in.skipBad {
			return fmt.Errorf("%s: %w (fix it, or pass -skip-bad to skip bad lines)", where, err)
		}
		in.failed++
		cr := ""
		if in.bar.on {
			cr = "\r" // over the progress bar
		}
		if in.failed <= maxReported {
			fmt.Fprintf(in.stderr, "%somoide ingest: skipped %s: %v\n", cr, where, err)
		} else if in.failed == maxReported+1 {
			fmt.Fprintf(in.stderr, "%somoide ingest: more bad lines skipped; the summary counts them\n", cr)
		}
		return nil
	}
	if format == formatTranscript {
		err = transcript.Read(r, topts, emit, bad)
	} else {
		err = readJSONL(ctx, r, emit, bad)
	}
	if err != nil && !strings.HasPrefix(err.Error(), shown+":") && !errors.Is(err, errStoreFailed) {
		err = fmt.Errorf("%s: %w", shown, err)
	}
	return err
}

// readJSONL reads one episode a non-blank line (episode.ReadRecords).
func readJSONL(ctx context.Context, r io.Reader, emit func(line int, e episode.Episode) error, bad func(line int, err error) error) error {
	return episode.ReadRecords(ctx, r, func(n int, rec episode.Record, err error) error {
		var e episode.Episode
		if err == nil {
			if rec.ID == "" && rec.ExternalID == "" {
				err = errors.New("id is missing (ingest needs it to stay idempotent)")
			} else {
				e, err = rec.Episode(time.Time{})
			}
		}
		if err != nil {
			return bad(n, err)
		}
		return emit(n, e)
	})
}

// add queues e and stores the batch when it is full.
func (in *ingester) add(ctx context.Context, where string, e episode.Episode) error {
	if len(in.pending) == 0 {
		in.where = where
	}
	in.lastWhere = where
	in.pending = append(in.pending, e)
	in.unsearched += wire.Unsearched(in.mem.Retriever.Options().Filter, []episode.Episode{e})
	in.read++
	if len(in.pending) >= in.batch {
		return in.flush(ctx)
	}
	return nil
}

// flush stores the pending batch in one transaction and counts what the
// store says it did.
func (in *ingester) flush(ctx context.Context) error {
	if len(in.pending) == 0 {
		return nil
	}
	r, err := in.mem.Put(ctx, in.update, in.pending...)
	if err != nil {
		return fmt.Errorf("%w: episodes of %s..%s: %v", errStoreFailed, in.where, in.lastWhere, err)
	}
	in.added += r.Added
	in.replaced += r.Replaced
	in.present += r.Present
	in.pending = in.pending[:0]
	in.bar.update(in.added + in.present)
	return nil
}
