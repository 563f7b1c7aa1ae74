// Package ingest reads episodes from JSON Lines files (episode.Record, as
// export writes them) and conversation transcripts (package transcript),
// gzip-compressed or not, and stores them in batches, counting what the store
// did with each: added, replaced, already present, skipped as malformed.
//
// A program that imports a person's history calls New once, Read for each
// input and Flush at the end; "omoide ingest" is that program.
package ingest

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

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/transcript"
)

// Format is an input format.
type Format string

// The formats Read knows.
const (
	JSONL      Format = "jsonl"      // one episode.Record a line; the id (external id) is required
	Transcript Format = "transcript" // package transcript's plain text
)

// ParseFormat returns the format named s: "jsonl" or "transcript".
func ParseFormat(s string) (Format, error) {
	if f := Format(s); f == JSONL || f == Transcript {
		return f, nil
	}
	return "", fmt.Errorf("format %q: want %s or %s", s, JSONL, Transcript)
}

// FormatOf returns the format a file name says: .jsonl, .ndjson and .json
// are JSON Lines, .txt a transcript, each optionally followed by .gz.
func FormatOf(name string) (Format, error) {
	lower := strings.TrimSuffix(strings.ToLower(name), ".gz")
	switch {
	case strings.HasSuffix(lower, ".jsonl"), strings.HasSuffix(lower, ".ndjson"), strings.HasSuffix(lower, ".json"):
		return JSONL, nil
	case strings.HasSuffix(lower, ".txt"):
		return Transcript, nil
	}
	return "", fmt.Errorf("%s: cannot tell the format from the name (.jsonl, .jsonl.gz or .txt)", name)
}

// NewReader returns r decompressed when it starts as gzip does, and its
// format: f, or when f is "", what the text starts with (a '{' after any
// blank and byte-order mark: JSONL; anything else: Transcript).
func NewReader(r io.Reader, f Format) (io.Reader, Format, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, "", fmt.Errorf("gzip: %w", err)
		}
		br = bufio.NewReaderSize(gz, 64<<10)
	}
	if f != "" {
		return br, f, nil
	}
	f = Transcript
	for i := 1; i <= 4096; i++ {
		b, err := br.Peek(i)
		if err != nil {
			break
		}
		if c := b[i-1]; strings.IndexByte(" \t\r\n\xef\xbb\xbf", c) < 0 {
			if c == '{' {
				f = JSONL
			}
			break
		}
	}
	return br, f, nil
}

// Count returns how many episodes r holds in format f, for a progress bar:
// its non-blank lines (JSONL) or its "@" lines (Transcript). It reads r to
// the end and checks nothing else.
func Count(r io.Reader, f Format) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), episode.MaxRecordLine)
	n := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) > 0 && (f == JSONL || line[0] == '@') {
			n++
		}
	}
	return n, sc.Err()
}

// CountFile returns how many episodes the file at path holds in format f (see
// NewReader for ""), gzip or not, as Count does.
func CountFile(path string, f Format) (int, error) {
	file, err := os.Open(path)
	if err != nil {
		return 0, err // the error names the path
	}
	defer file.Close()
	r, f, err := NewReader(file, f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	n, err := Count(r, f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// Storer stores a batch of episodes in one transaction and says what it did:
// omoide.Memory's Put.
type Storer interface {
	Put(ctx context.Context, replace bool, eps ...episode.Episode) (episode.PutResult, error)
}

// DefaultBatch is the number of episodes Options.Batch 0 stores a
// transaction.
const DefaultBatch = 500

// Options configure an Ingester. The zero value stores 500 episodes a
// transaction, refuses an episode stored before with other content, and stops
// at the first malformed line.
type Options struct {
	// Batch is the number of episodes stored a transaction; 0 means
	// DefaultBatch.
	Batch int
	// Replace replaces an episode stored under the same person and external
	// id with other content; without it such an episode is an error.
	Replace bool
	// SkipBad counts a malformed line (transcript: block) in Result.Skipped,
	// reports it to Bad and goes on, instead of stopping there.
	SkipBad bool
	// Bad is told of each line SkipBad skips, with where it is ("file:line").
	Bad func(where string, err error)
	// Stored is told after each batch is stored, with the episodes read so
	// far, for a progress bar.
	Stored func(read int)
	// Unsearched says whether an episode is left out of searches by default
	// (private, archived: retriever.Filter.Admits), for Result.Unsearched; nil
	// counts none.
	Unsearched func(episode.Episode) bool
	// Transcript configures the reading of transcripts.
	Transcript transcript.Options
}

// Result counts what an Ingester read and what the store did with it.
type Result struct {
	Read       int // episodes read (not the skipped lines)
	Added      int // stored that the store did not hold
	Replaced   int // stored versions replaced by other content (Options.Replace)
	Present    int // already stored with the same content, or repeated
	Skipped    int // malformed lines or blocks skipped (Options.SkipBad)
	Unsearched int // of those read, left out of searches by default (Options.Unsearched)
}

// Ingester batches the episodes of its inputs into a Storer. It is not safe
// for concurrent use.
type Ingester struct {
	store Storer
	opts  Options
	res   Result

	pending     []episode.Episode
	first, last string // where the pending batch starts and ends, for errors
}

// New returns an Ingester storing into s.
func New(s Storer, opts Options) *Ingester {
	if opts.Batch <= 0 {
		opts.Batch = DefaultBatch
	}
	return &Ingester{store: s, opts: opts}
}

// ErrStore marks an error of the store, not of the input: the batch it
// names is not stored.
var ErrStore = errors.New("store failed")

// Read reads the episodes of r in format f (see NewReader for "") and stores
// them in batches; name says where they come from in errors ("file:line").
// At a malformed line without SkipBad, Read stores the episodes before it and
// returns the line's error. Episodes of the last batch wait for Flush, so that
// many small inputs share transactions.
func (in *Ingester) Read(ctx context.Context, name string, r io.Reader, f Format) error {
	r, f, err := NewReader(r, f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	emit := func(line int, e episode.Episode) error {
		return in.add(ctx, fmt.Sprintf("%s:%d", name, line), e)
	}
	bad := func(line int, err error) error {
		where := fmt.Sprintf("%s:%d", name, line)
		if !in.opts.SkipBad {
			return fmt.Errorf("%s: %w", where, err)
		}
		in.res.Skipped++
		if in.opts.Bad != nil {
			in.opts.Bad(where, err)
		}
		return nil
	}
	switch f {
	case Transcript:
		err = transcript.Read(r, in.opts.Transcript, emit, bad)
	case JSONL:
		err = readJSONL(ctx, r, emit, bad)
	default:
		return fmt.Errorf("%s: %w", name, errors.New("format "+string(f)+" is not jsonl or transcript"))
	}
	if err == nil || errors.Is(err, ErrStore) || ctx.Err() != nil {
		return err
	}
	if !strings.HasPrefix(err.Error(), name+":") {
		err = fmt.Errorf("%s: %w", name, err)
	}
	// Stopped at a bad line: keep what came before it.
	return errors.Join(err, in.Flush(ctx))
}

// ReadFile reads the file at path as Read reads an input, gzip or not, in
// format f (see NewReader for ""), naming it path in errors.
func (in *Ingester) ReadFile(ctx context.Context, path string, f Format) error {
	file, err := os.Open(path)
	if err != nil {
		return err // the error names the path
	}
	defer file.Close()
	return in.Read(ctx, path, file, f)
}

// readJSONL reads one record a non-blank line (episode.ReadRecords).
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
func (in *Ingester) add(ctx context.Context, where string, e episode.Episode) error {
	if len(in.pending) == 0 {
		in.first = where
	}
	in.last = where
	in.pending = append(in.pending, e)
	in.res.Read++
	if in.opts.Unsearched != nil && in.opts.Unsearched(e) {
		in.res.Unsearched++
	}
	if len(in.pending) >= in.opts.Batch {
		return in.Flush(ctx)
	}
	return nil
}

// Flush stores the episodes read and not yet stored, in one transaction.
func (in *Ingester) Flush(ctx context.Context) error {
	if len(in.pending) == 0 {
		return nil
	}
	r, err := in.store.Put(ctx, in.opts.Replace, in.pending...)
	if err != nil {
		return fmt.Errorf("%w: episodes of %s..%s: %w", ErrStore, in.first, in.last, err)
	}
	in.res.Added += r.Added
	in.res.Replaced += r.Replaced
	in.res.Present += r.Present
	in.pending = in.pending[:0]
	if in.opts.Stored != nil {
		in.opts.Stored(in.res.Read)
	}
	return nil
}

// Result returns the counts so far; episodes still pending (not flushed) are
// read but not yet added.
func (in *Ingester) Result() Result { return in.res }
