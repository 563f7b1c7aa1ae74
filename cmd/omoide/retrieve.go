package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/internal/strictjson"
	"github.com/omoide/omoide/internal/wire"
	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/retriever"
)

const retrieveDescription = `Retrieve finds the user's past episodes worth reminding the model of, given their new message,
and prints them ranked with their score parts and the trace of the pipeline; -pack prints the
EPISODE_EVIDENCE section instead (nothing, when nothing is worth injecting), -json the result
as JSON.

The context is the conversation just before the message, oldest first: -context FILE (a JSON
array [{"role": "user"|"assistant"|"system", "content": "..."}], "-" for standard input) or repeated
-recent flags. With neither, the user's last stored episodes serve as the context, as in the
reference design, within the last 30 minutes (an exchange stored earlier is a memory to find, not
the conversation); -no-context searches with the message alone.

Searched by default: every kind (exchanges, stated facts, summaries), every state but archived,
normal sensitivity. -max-sensitivity private admits private episodes (a private conversation);
-kinds and -states narrow or widen the rest; "omoide stats" counts what the default leaves out.

`

// recentFlags is the repeatable -recent "user:TEXT" / "assistant:TEXT".
type recentFlags []retriever.Message

func (r *recentFlags) String() string { return fmt.Sprint(len(*r), " messages") }

func (r *recentFlags) Set(v string) error {
	role, content, ok := strings.Cut(v, ":")
	role = strings.TrimSpace(role)
	if !ok || role != "user" && role != "assistant" && role != "system" {
		return fmt.Errorf("%q: want \"user:TEXT\", \"assistant:TEXT\" or \"system:TEXT\"", pytext.Clip(v, 40))
	}
	*r = append(*r, retriever.Message{Role: role, Content: strings.TrimSpace(content)})
	return nil
}

func runRetrieve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("retrieve", stderr)
	sc := addStoreFlags(fs)
	sc.addRetrieveFlags(fs)
	user := fs.String("user", "", "whose memory to search (required)")
	text := fs.String("text", "", "the person's new message (or give it as the argument)")
	ctxFile := fs.String("context", "", "a JSON `file` of the recent turns, oldest first, or - for standard input")
	var recent recentFlags
	fs.Var(&recent, "recent", "a recent turn, oldest first: \"user:TEXT\", \"assistant:TEXT\" or \"system:TEXT\" (repeatable)")
	noContext := fs.Bool("no-context", false, "search with the message alone (not the last stored episodes)")
	nowFlag := fs.String("now", "", "the clock, RFC 3339 (default: now)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pack := fs.Bool("pack", false, "print the EPISODE_EVIDENCE section instead of the ranking")
	strategy := fs.String("strategy", "quote_key_parts", "-pack: how much to quote: quote_key_parts, summarize or full")
	reasons := fs.Bool("reasons", false, "-pack: show why each episode was picked (its score parts), which the default preset leaves out")
	tz := fs.String("tz", "Local", "the person's time `zone`, e.g. Asia/Tokyo: of time expressions (\"昨日\"), day windows and the dates shown")
	candidates := fs.Bool("candidates", false, "also show every reranked candidate, before the decision (with its probability for the first ten)")
	langHint := fs.String("lang", "", "the message's `language` where its script does not tell: ja, zh, ko or en (a Japanese person's Han-only 東京都庁)")
	clip := fs.Int("clip", 60, "clip texts in the table to this many characters (0: no clipping)")
	setUsage(fs, "omoide retrieve -user USER [flags] [-text] MESSAGE", retrieveDescription)
	pos, err := sc.parseArgs(args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 1:
		return fmt.Errorf("%w: unexpected argument %q (quote the message)", errUsage, pos[1])
	case len(pos) == 1 && *text != "":
		return fmt.Errorf("%w: the message is given twice: as -text and as the argument %q", errUsage, pos[0])
	case len(pos) == 1:
		*text = pos[0]
	}
	if *user == "" {
		return fmt.Errorf("%w: -user is required", errUsage)
	}
	if strings.TrimSpace(*text) == "" {
		return fmt.Errorf("%w: no message: give -text or the message as the argument", errUsage)
	}
	req := retriever.Request{User: *user, Text: *text, WithCandidates: *candidates}
	if req.Lang, err = lang.Parse(*langHint); err != nil {
		return fmt.Errorf("%w: -lang: %v", errUsage, err)
	}
	sources := 0
	for _, b := range []bool{*ctxFile != "", len(recent) > 0, *noContext} {
		if b {
			sources++
		}
	}
	if sources > 1 {
		return fmt.Errorf("%w: give one of -context, -recent and -no-context", errUsage)
	}
	switch {
	case *ctxFile != "":
		if req.Recent, err = readContextFile(*ctxFile); err != nil {
			return fmt.Errorf("%w: -context %s: %v", errUsage, *ctxFile, err)
		}
	case len(recent) > 0:
		req.Recent = recent
	case *noContext:
		req.Recent = []retriever.Message{}
	}
	if *nowFlag != "" {
		if req.Now, err = time.Parse(time.RFC3339, *nowFlag); err != nil {
			return fmt.Errorf("%w: -now %q: want RFC 3339, e.g. 2025-06-01T21:30:00+09:00", errUsage, *nowFlag)
		}
	}
	loc, err := time.LoadLocation(*tz)
	if err != nil {
		return fmt.Errorf("%w: -tz: %v", errUsage, err)
	}
	popts := sc.pack()
	popts.Location = loc
	if popts.Strategy, err = memorypack.ParseStrategy(*strategy); err != nil {
		return fmt.Errorf("%w: -strategy: %v", errUsage, err)
	}
	if *reasons {
		popts.ShowReason = true
	}

	mem, err := sc.openMemory(ctx, true, popts)
	if err != nil {
		return err
	}
	defer mem.Close()
	section, res, err := mem.EvidenceWith(ctx, req, popts)
	if err != nil {
		return err
	}
	switch {
	case *asJSON && *pack:
		return writeJSON(stdout, wire.PackOf(section, res))
	case *asJSON:
		return writeJSON(stdout, res)
	case *pack:
		if section == "" {
			fmt.Fprintf(stderr, "omoide retrieve: nothing worth injecting (%d episodes picked)\n", len(res.Hits))
			return nil
		}
		_, err := io.WriteString(stdout, section)
		return err
	}
	printResult(stdout, req, res, loc, *clip)
	return nil
}

// readContextFile reads a JSON array of recent turns.
func readContextFile(name string) ([]retriever.Message, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	var ms []wire.Message
	if err := strictjson.Decode(r, &ms); err != nil {
		return nil, fmt.Errorf("%v (want [{\"role\": \"user\", \"content\": \"...\"}, ...])", err)
	}
	out, err := wire.Messages(ms)
	if out == nil && err == nil {
		out = []retriever.Message{} // null: no context
	}
	return out, err
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printResult prints the ranking and the trace as text.
func printResult(w io.Writer, req retriever.Request, res retriever.Result, loc *time.Location, clip int) {
	fmt.Fprintf(w, "%s: %d episodes in %s\n", req.User, len(res.Hits), res.Trace.Total.Round(time.Microsecond))
	if len(res.Hits) > 0 {
		fmt.Fprintln(w)
		printHits(w, res.Hits, loc, clip)
	}
	if res.Candidates != nil {
		fmt.Fprintf(w, "\ncandidates (%d, before the decision):\n", len(res.Candidates))
		printHits(w, res.Candidates, loc, clip)
	}
	fmt.Fprintf(w, "\n%s", res.Trace)
}

func printHits(w io.Writer, hits []retriever.Hit, loc *time.Location, clip int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  #\trelevance\tp\tscore\trrf_norm\tlex\trec\tdate\tid\texternal id\ttext")
	for i, h := range hits {
		rel, p := "-", "-"
		if h.Relevance != 0 {
			rel = h.Relevance.String()
		}
		if h.Probability > 0 {
			p = fmt.Sprintf("%.3f", h.Probability)
		}
		e := h.Episode
		text := e.UserText
		if e.ReplyText != "" {
			if text != "" {
				text += " / "
			}
			text += e.ReplyText
		}
		ext := e.ExternalID
		if ext == "" {
			ext = "-"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%d\t%s\t%s\n", i+1, rel, p, h.Score, h.RRFNorm, h.Lex, h.Rec,
			e.OccurredAt.In(loc).Format("2006-01-02"), e.ID, ext, pytext.Clip(text, clip))
	}
	tw.Flush()
}
