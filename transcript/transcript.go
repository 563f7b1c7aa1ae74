// Package transcript reads conversation transcripts, a plain text format a
// person can write or export from a chat (Format describes it), into
// episodes: one block, one exchange, with a stable external id so that
// reading the file again adds only its new blocks.
package transcript

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/pytext"
)

// Format describes the transcript format (omoide ingest -help prints it).
const Format = `Transcript format (UTF-8 text, one file per conversation or several users per file):

  # user: haruka
  # tz: Asia/Tokyo            (optional: the zone of timestamps written without an offset)
  # any other line starting with '#' is a comment

  @ 2025-06-01 21:30 +09:00
  > 昨日、駅前のラーメン屋に行ったよ
  > 味噌バターが最高だった
  < いいね！今度はどのお店に行くの？

  @ 2025-06-02T08:00:00+09:00 [reminder]
  > 今日は15時から歯医者の予約があります

  - "# user: NAME" sets the person for the blocks after it (it may appear again to switch
    person); -user names the person of blocks before any such line.
  - A block starts with a timestamp line "@ TIME" and ends at a blank line (or at the next
    "@" line). TIME is RFC 3339 (2025-06-01T21:30:00+09:00, 2025-06-01T12:30:00Z) or
    "2025-06-01 21:30[:SS] +09:00" ("2025/06/01" and "+0900" work too); without an offset it
    needs "# tz: ZONE" or -tz.
  - "> text" lines are the person's message, "< text" lines the companion's reply; several
    lines with the same marker form one multi-line message (one space after the marker is
    dropped). All ">" lines come before the "<" lines: one block is one exchange.
  - A block with no "<" line is a notification (source "notification"), one with no ">"
    line the companion speaking first (source "proactive"), any other a chat ("chat").
    "@ TIME [SOURCE]" sets the source explicitly.
  - Each block becomes one episode whose external id is
        USER:TIME_IN_UTC:N     e.g. haruka:2025-06-01T12:30:00Z:1
    where N counts the blocks of that person at that same second in the file (1, 2, ...).
    Re-ingesting the file, or the file with blocks appended, adds only the new blocks.
`

// Options configure Read. The zero value reads transcripts whose blocks all
// name their person and give their timestamps an offset.
type Options struct {
	User     string         // the person of blocks before any "# user:" line
	Location *time.Location // the zone of timestamps without an offset; nil: they are an error
}

// tblock is a transcript block being read.
type tblock struct {
	line    int // of its "@" line
	user    string
	at      time.Time
	source  string
	prompt  []string
	reply   []string
	err     error // the first problem found in the block
	errLine int
}

// Read reads a transcript, calling emit with each block's episode (checked
// as a store checks it: episode.Episode.Normalize) and the line of its "@",
// and bad with each malformed block or line (its first problem). Reading
// stops at the first error emit or bad returns, which Read returns.
func Read(r io.Reader, opts Options, emit func(line int, e episode.Episode) error, bad func(line int, err error) error) error {
	user, loc := opts.User, opts.Location
	seen := map[string]int{} // user + "\x00" + stamp → blocks so far
	var cur *tblock
	finish := func() error {
		b := cur
		cur = nil
		if b == nil {
			return nil
		}
		if b.err != nil {
			return bad(b.errLine, b.err)
		}
		e, err := b.episode()
		if err != nil {
			return bad(b.line, err)
		}
		stamp := b.at.UTC().Format(time.RFC3339)
		key := e.User + "\x00" + stamp
		seen[key]++
		e.ExternalID = e.User + ":" + stamp + ":" + strconv.Itoa(seen[key])
		return emit(b.line, e)
	}
	// broken starts a block that is already wrong, so that the lines that
	// follow it up to the next blank line are one error, not one each.
	broken := func(n int, err error) {
		if cur == nil {
			cur = &tblock{line: n}
		}
		if cur.err == nil {
			cur.err, cur.errLine = err, n
		}
	}

	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if !utf8.ValidString(line) {
			broken(n, errors.New("the line is not valid UTF-8"))
			continue
		}
		if strings.TrimSpace(line) == "" {
			if err := finish(); err != nil {
				return err
			}
			continue
		}
		switch line[0] {
		case '@':
			if err := finish(); err != nil {
				return err
			}
			cur = &tblock{line: n, user: user}
			at, source, err := parseStampLine(line[1:], loc)
			if err != nil {
				broken(n, err)
				continue
			}
			cur.at, cur.source = at, source
		case '#':
			key, val, directive := parseDirective(line[1:])
			if !directive {
				continue // a comment
			}
			if err := finish(); err != nil {
				return err
			}
			switch key {
			case "user":
				if val == "" {
					broken(n, errors.New(`"# user:" names no one`))
					continue
				}
				user = val
			case "tz":
				l, err := time.LoadLocation(val)
				if err != nil {
					broken(n, fmt.Errorf(`"# tz: %s": %v`, val, err))
					continue
				}
				loc = l
			}
		case '>', '<':
			if cur == nil {
				broken(n, fmt.Errorf("a %q line outside a block: start the block with a timestamp line \"@ 2025-06-01 21:30 +09:00\"", line[:1]))
				continue
			}
			if cur.err != nil {
				continue
			}
			text := strings.TrimPrefix(line[1:], " ")
			if line[0] == '<' {
				cur.reply = append(cur.reply, text)
			} else if len(cur.reply) > 0 {
				broken(n, errors.New(`a ">" line after the reply: one block is one exchange; start the next with its own "@ TIME" line`))
			} else {
				cur.prompt = append(cur.prompt, text)
			}
		default:
			broken(n, fmt.Errorf("%q: a line must be blank or start with '@' (a timestamp), '>' (the person), '<' (the companion) or '#' (a comment)",
				pytext.Clip(line, 40)))
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return finish()
}

// episode converts a complete block.
func (b *tblock) episode() (episode.Episode, error) {
	if b.user == "" {
		return episode.Episode{}, errors.New(`the block has no user: put a "# user: NAME" line above it, or name the person of such blocks (omoide ingest -user)`)
	}
	e := episode.Episode{
		User:       b.user,
		UserText:   strings.TrimSpace(strings.Join(b.prompt, "\n")),
		ReplyText:  strings.TrimSpace(strings.Join(b.reply, "\n")),
		OccurredAt: b.at,
		Source:     b.source,
	}
	if e.UserText == "" && e.ReplyText == "" {
		return episode.Episode{}, errors.New(`the block has no message: add "> ..." or "< ..." lines`)
	}
	if e.Source == "" {
		switch {
		case e.ReplyText == "":
			e.Source = "notification"
		case e.UserText == "":
			e.Source = "proactive"
		default:
			e.Source = episode.DefaultSource
		}
	}
	return e, e.Normalize() // on a copy: the defaults it fills stay here
}

// parseDirective recognizes "# user: NAME" and "# tz: ZONE" (after the '#').
func parseDirective(s string) (key, val string, ok bool) {
	k, v, found := strings.Cut(s, ":")
	if !found {
		return "", "", false
	}
	key = strings.ToLower(strings.TrimSpace(k))
	if key != "user" && key != "tz" {
		return "", "", false
	}
	return key, strings.TrimSpace(v), true
}

// parseStampLine parses what follows '@': a timestamp and an optional
// "[source]".
func parseStampLine(s string, loc *time.Location) (time.Time, string, error) {
	s = strings.TrimSpace(s)
	source := ""
	if strings.HasSuffix(s, "]") {
		if i := strings.LastIndex(s, "["); i >= 0 {
			source = strings.TrimSpace(s[i+1 : len(s)-1])
			s = strings.TrimSpace(s[:i])
			if source == "" {
				return time.Time{}, "", errors.New(`empty "[]": name the source, e.g. [reminder]`)
			}
		}
	}
	t, err := parseStamp(s, loc)
	return t, source, err
}

// Timestamp layouts of a transcript, with and without a UTC offset.
var (
	zonedLayouts = []string{
		"2006-01-02T15:04:05Z07:00", "2006-01-02T15:04Z07:00",
		"2006-01-02 15:04:05Z07:00", "2006-01-02 15:04Z07:00",
		"2006-01-02 15:04:05 Z07:00", "2006-01-02 15:04 Z07:00",
		"2006-01-02T15:04:05Z0700", "2006-01-02 15:04:05 Z0700", "2006-01-02 15:04 Z0700",
		"2006-01-02 15:04:05 MST", "2006-01-02 15:04 MST",
	}
	localLayouts = []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"}
)

// parseStamp parses a transcript timestamp; one without an offset is in loc,
// or an error when loc is nil.
func parseStamp(s string, loc *time.Location) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New(`the "@" line has no timestamp: write "@ 2025-06-01 21:30 +09:00"`)
	}
	norm := s
	if len(norm) >= 10 && norm[4] == '/' && norm[7] == '/' {
		norm = norm[:4] + "-" + norm[5:7] + "-" + norm[8:]
	}
	for _, layout := range zonedLayouts {
		if t, err := time.Parse(layout, norm); err == nil {
			if strings.HasSuffix(layout, "MST") && norm[len(norm)-3:] != "UTC" && norm[len(norm)-3:] != "GMT" {
				continue // other zone abbreviations are ambiguous
			}
			return t, nil
		}
	}
	for _, layout := range localLayouts {
		if _, err := time.Parse(layout, norm); err == nil {
			if loc == nil {
				return time.Time{}, fmt.Errorf("timestamp %q has no UTC offset: write one (%s +09:00), or set the zone with \"# tz: Asia/Tokyo\" or -tz", s, s)
			}
			return time.ParseInLocation(layout, norm, loc)
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q: want RFC 3339 (2025-06-01T21:30:00+09:00) or \"2025-06-01 21:30 +09:00\"", s)
}
