// Package memorypack renders retrieved past episodes as the EPISODE_EVIDENCE
// section of a companion's prompt (the "MemoryPack") and fits the pack into a
// character budget, the way the reference retriever does.
//
// The rendering follows the reference code byte for byte. Its evidence lines
// are: the intro, an empty line, then for each episode a date line, the quoted
// user and reply texts, the reason, and an empty line. RenderEvidence returns
// the header and those lines joined with "\n", so the text ends with a single
// "\n" (the empty line after the last episode) and consecutive episodes are
// separated by a blank line. Assemble then terminates every block of the pack
// with "\n\n", as the reference's section() does, which reproduces the
// reference pack exactly, except that an evidence section that is not
// injected or is dropped leaves nothing, where the reference leaves its bare
// "[EPISODE_EVIDENCE]\n\n" header.
package memorypack

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/rerank"
)

// Relevance is how strongly an episode bears on the current conversation, as
// the ranking decides it (rerank.Relevance). The zero value is no relevance:
// such an item is rendered when the section is injected but never counts
// towards ShouldInject.
type Relevance = rerank.Relevance

const (
	High   = rerank.High   // the best episode (the reference's first pick)
	Medium = rerank.Medium // the other selected episodes
)

// Evidence is one retrieved episode to show in the EPISODE_EVIDENCE section.
type Evidence struct {
	// OccurredAt is when the exchange happened. The zero time means unknown:
	// the date is then left out of the episode's first line.
	OccurredAt time.Time
	// UserText is what the person said.
	UserText string
	// ReplyText is the companion's reply; empty for a notification.
	ReplyText string
	// Relevance is High or Medium.
	Relevance Relevance
	// Reason says why the episode was picked, e.g. the reference's
	// "heuristic rerank: score=0.420 rrf=1.000 lex=0.050 rec=0.900".
	Reason string
	// Title, when set, follows the date on the episode's first line. The
	// reference never sets it.
	Title string
}

// Strategy is how much of each episode is quoted. The zero value is
// QuoteKeyParts, the reference's fixed choice.
type Strategy int

const (
	// QuoteKeyParts quotes the user text clipped to 120 code points and the
	// reply clipped to 160, on separate lines.
	QuoteKeyParts Strategy = iota
	// Summarize clips the user text to 180 and the reply to 220, joins the
	// non-empty ones with " / ", clips the result to 380 and renders it on one
	// line after the summary label ("要点: ..."), as the reference code does.
	Summarize
	// Full quotes the user text clipped to 420 and the reply clipped to 520,
	// on separate lines.
	Full
)

// summaryLimit is the reference's clip of the joined Summarize line.
const summaryLimit = 380

// String returns "quote_key_parts", "summarize" or "full", or "Strategy(n)"
// for other values.
func (s Strategy) String() string {
	switch s {
	case QuoteKeyParts:
		return "quote_key_parts"
	case Summarize:
		return "summarize"
	case Full:
		return "full"
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// limits returns the user and reply clip limits; an unknown strategy falls
// back to QuoteKeyParts, as the reference does.
func (s Strategy) limits() (user, reply int) {
	switch s {
	case Summarize:
		return 180, 220
	case Full:
		return 420, 520
	}
	return 120, 160
}

// ErrUnknownStrategy is wrapped by the error ParseStrategy returns for a name
// it does not know.
var ErrUnknownStrategy = errors.New("unknown injection strategy")

// ParseStrategy returns the strategy named s: "quote_key_parts", "summarize"
// or "full". Surrounding whitespace is ignored and an empty name is
// QuoteKeyParts, as in the reference; names are case-sensitive. Any other name
// is an error that quotes it and wraps ErrUnknownStrategy (the reference
// silently falls back to quote_key_parts instead).
func ParseStrategy(s string) (Strategy, error) {
	switch strings.TrimSpace(s) {
	case "", "quote_key_parts":
		return QuoteKeyParts, nil
	case "summarize":
		return Summarize, nil
	case "full":
		return Full, nil
	}
	return QuoteKeyParts, fmt.Errorf("memorypack: %w %q (want quote_key_parts, summarize or full)", ErrUnknownStrategy, s)
}

// ISOFormat is the date format of later versions of the reference: local time
// with its UTC offset, as Python's datetime.isoformat() writes whole seconds
// (UTC is "+00:00", never "Z").
const ISOFormat = "2006-01-02T15:04:05-07:00"

// The reference rendering.
const (
	DefaultHeader        = "[EPISODE_EVIDENCE]"
	DefaultIntro         = "以下は現在の会話に関連する過去のやりとりです。"
	DefaultUserLabel     = "User"
	DefaultReplyLabel    = "Partner"
	DefaultSummaryLabel  = "要点"
	DefaultRelatedPrefix = "→ 関連: "
	DefaultDateFormat    = "2006-01-02"
	DefaultReasonLimit   = 180
)

// Options controls the rendering of the EPISODE_EVIDENCE section. Every zero
// field means the default, so Options{} renders exactly like
// DefaultOptions(): the reference's layout without the reason line.
type Options struct {
	// Strategy is how much of each episode is quoted.
	Strategy Strategy
	// Header is the section's first line; "" = "[EPISODE_EVIDENCE]".
	Header string
	// Intro is the line after the header; "" = DefaultIntro, unless the
	// caller writes it in the message's language (omoide.Memory: IntroFor).
	Intro string
	// UserLabel and ReplyLabel name the speakers: `User: 「...」`,
	// `Partner: 「...」`. "" = "User" and "Partner"; later versions of the
	// reference label the reply "Persona".
	UserLabel, ReplyLabel string
	// SummaryLabel starts the Summarize line: `要点: ...`; "" = "要点".
	SummaryLabel string
	// RelatedPrefix starts the reason line; "" = "→ 関連: ".
	RelatedPrefix string
	// DateFormat is a time layout for the episode's date; "" = "2006-01-02".
	// ISOFormat gives the later reference's rendering.
	DateFormat string
	// Location is the time zone of the date; nil = UTC. The earlier reference
	// renders UTC days, the later one the server's local time.
	Location *time.Location
	// ReasonLimit clips the reason, in code points; 0 = 180, negative = no
	// clipping (the reason is still compacted).
	ReasonLimit int
	// ShowReason adds the reason line (why the episode was picked, as the
	// reference renders it); the default leaves it out.
	ShowReason bool
}

// ReferenceHeader is the section's header in the reference at commit 39ca2e7,
// where every MemoryPack section is headed <<<COCORO_GHOST_SECTION:NAME>>>.
const ReferenceHeader = "<<<COCORO_GHOST_SECTION:EPISODE_EVIDENCE>>>"

// ReferenceOptions returns the rendering of the reference at commit 39ca2e7
// (2026-01-04), the commit the reference preset reproduces: ReferenceHeader,
// the date as local ISO time with its offset (there the server's zone; here
// Location's, the person's), the reply labelled "Persona".
func ReferenceOptions() Options {
	o := EarlyReferenceOptions()
	o.Header, o.DateFormat, o.ReplyLabel = ReferenceHeader, ISOFormat, "Persona"
	return o
}

// DefaultOptions returns omoide's default rendering: the layout of the
// reference up to 2025-12-30 (EarlyReferenceOptions) without the reason line,
// a debugging aid a model gains nothing from and pays tokens for, and
// without a fixed intro: omoide.Memory writes it in the language of the
// person's message (IntroFor), the zero Intro's Japanese otherwise.
func DefaultOptions() Options {
	o := EarlyReferenceOptions()
	o.ShowReason, o.Intro = false, ""
	return o
}

// IntroFor returns the intro line in the language l: DefaultIntro, the
// reference's Japanese, for Japanese; English for lang.Other (English and
// every script without Han, kana or Hangul); Chinese and Korean their own.
func IntroFor(l lang.Language) string {
	switch l {
	case lang.Other:
		return "Below are past exchanges with this person that bear on the current conversation."
	case lang.Chinese:
		return "以下是与当前对话相关的过往对话。"
	case lang.Korean:
		return "다음은 현재 대화와 관련된 과거 대화입니다."
	}
	return DefaultIntro
}

// EarlyReferenceOptions returns the reference's rendering up to 2025-12-30,
// every value explicit: "[EPISODE_EVIDENCE]", the UTC day, the reply labelled
// "Partner", the reason line. The zero Options renders the same without the
// reason line.
func EarlyReferenceOptions() Options {
	return Options{
		Strategy:      QuoteKeyParts,
		Header:        DefaultHeader,
		Intro:         DefaultIntro,
		UserLabel:     DefaultUserLabel,
		ReplyLabel:    DefaultReplyLabel,
		SummaryLabel:  DefaultSummaryLabel,
		RelatedPrefix: DefaultRelatedPrefix,
		DateFormat:    DefaultDateFormat,
		Location:      time.UTC,
		ReasonLimit:   DefaultReasonLimit,
		ShowReason:    true,
	}
}

// withDefaults fills the zero fields of o with the reference's values.
func (o Options) withDefaults() Options {
	d := EarlyReferenceOptions()
	set := func(v *string, def string) {
		if *v == "" {
			*v = def
		}
	}
	set(&o.Header, d.Header)
	set(&o.Intro, d.Intro)
	set(&o.UserLabel, d.UserLabel)
	set(&o.ReplyLabel, d.ReplyLabel)
	set(&o.SummaryLabel, d.SummaryLabel)
	set(&o.RelatedPrefix, d.RelatedPrefix)
	set(&o.DateFormat, d.DateFormat)
	if o.Location == nil {
		o.Location = d.Location
	}
	if o.ReasonLimit == 0 {
		o.ReasonLimit = d.ReasonLimit
	}
	return o
}

// ShouldInject reports whether the evidence is worth injecting: at least one
// High item, or at least two Medium items.
func ShouldInject(items []Evidence) bool {
	medium := 0
	for _, e := range items {
		switch e.Relevance {
		case High:
			return true
		case Medium:
			medium++
		}
	}
	return medium >= 2
}

// RenderEvidence renders items, in order, as the EPISODE_EVIDENCE section, or
// returns "" when ShouldInject(items) is false. The text is the header, the
// intro, an empty line, and for each episode:
//
//	[<date>] <title>        (date in opts.Location; the title only when set)
//	User: 「<user text>」    (left out when the clipped text is empty)
//	Partner: 「<reply>」     (left out when the clipped text is empty)
//	→ 関連: <reason>         (only with ShowReason, and left out when empty)
//	                        (an empty line)
//
// all joined with "\n"; so the text ends with one "\n" and no blank line
// follows the last episode until Assemble terminates the section. Texts are
// compacted (every whitespace run, including newlines and U+3000, becomes one
// space) and clipped per opts.Strategy with pytext.Clip; the title is
// compacted. With Summarize the two quote lines are replaced by one
// summary line, "要点: <user> / <reply>".
func RenderEvidence(items []Evidence, opts Options) string {
	if !ShouldInject(items) {
		return ""
	}
	o := opts.withDefaults()
	userLimit, replyLimit := o.Strategy.limits()
	lines := []string{o.Header, o.Intro, ""}
	for _, e := range items {
		var head []string
		if !e.OccurredAt.IsZero() {
			head = append(head, "["+e.OccurredAt.In(o.Location).Format(o.DateFormat)+"]")
		}
		if t := pytext.Compact(e.Title); t != "" {
			head = append(head, t)
		}
		if len(head) > 0 {
			lines = append(lines, strings.Join(head, " "))
		}

		ut := pytext.Clip(e.UserText, userLimit)
		rt := pytext.Clip(e.ReplyText, replyLimit)
		if o.Strategy == Summarize {
			var parts []string
			for _, p := range []string{ut, rt} {
				if p != "" {
					parts = append(parts, p)
				}
			}
			lines = append(lines, o.SummaryLabel+": "+pytext.Clip(strings.Join(parts, " / "), summaryLimit))
		} else {
			if ut != "" {
				lines = append(lines, o.UserLabel+": 「"+ut+"」")
			}
			if rt != "" {
				lines = append(lines, o.ReplyLabel+": 「"+rt+"」")
			}
		}

		if o.ShowReason {
			if r := pytext.Clip(e.Reason, o.ReasonLimit); r != "" {
				lines = append(lines, o.RelatedPrefix+r)
			}
		}
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
