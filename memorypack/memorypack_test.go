package memorypack

import (
	"errors"
	"github.com/omoide/omoide/lang"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Asia/Tokyo without relying on the system's zoneinfo
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func tokyo(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

const (
	header = "[EPISODE_EVIDENCE]\n以下は現在の会話に関連する過去のやりとりです。\n\n"
	reason = "heuristic rerank: score=0.420 rrf=1.000 lex=0.050 rec=0.900"
)

var r = strings.Repeat

// goldenItems is one high and one medium episode, the second a notification
// (no reply).
var goldenItems = []Evidence{
	{
		OccurredAt: at("2025-12-01T03:00:00Z"),
		UserText:   "今週中に完成させたい",
		ReplyText:  "締切は金曜日でしたね。サポートしますよ",
		Relevance:  High,
		Reason:     reason,
	},
	{
		OccurredAt: at("2025-11-20T10:00:00Z"),
		UserText:   "ラーメン食べたい",
		Relevance:  Medium,
		Reason:     "heuristic rerank: score=0.300 rrf=0.500 lex=0.100 rec=0.700",
	},
}

const golden = "[EPISODE_EVIDENCE]\n" +
	"以下は現在の会話に関連する過去のやりとりです。\n" +
	"\n" +
	"[2025-12-01]\n" +
	"User: 「今週中に完成させたい」\n" +
	"Partner: 「締切は金曜日でしたね。サポートしますよ」\n" +
	"→ 関連: heuristic rerank: score=0.420 rrf=1.000 lex=0.050 rec=0.900\n" +
	"\n" +
	"[2025-11-20]\n" +
	"User: 「ラーメン食べたい」\n" +
	"→ 関連: heuristic rerank: score=0.300 rrf=0.500 lex=0.100 rec=0.700\n"

func TestRenderEvidenceGolden(t *testing.T) {
	for name, opts := range map[string]Options{"zero, showing the reason": {ShowReason: true}, "early reference": EarlyReferenceOptions()} {
		if got := RenderEvidence(goldenItems, opts); got != golden {
			t.Errorf("%s options:\ngot  %q\nwant %q", name, got, golden)
		}
	}
}

func TestRenderEvidenceZeroOptionsEqualDefault(t *testing.T) {
	if (Options{}).withDefaults() != DefaultOptions().withDefaults() {
		t.Errorf("Options{} with defaults = %+v, want DefaultOptions() %+v", (Options{}).withDefaults(), DefaultOptions())
	}
	items := []Evidence{{
		OccurredAt: at("2025-11-30T16:00:00Z"), UserText: r("あ", 130), ReplyText: r("い", 170),
		Relevance: High, Reason: r("x", 200), Title: "題",
	}}
	for _, s := range []Strategy{QuoteKeyParts, Summarize, Full} {
		d := DefaultOptions()
		d.Strategy = s
		if got, want := RenderEvidence(items, Options{Strategy: s}), RenderEvidence(items, d); got != want {
			t.Errorf("%v: Options{} %q != DefaultOptions() %q", s, got, want)
		}
	}
	// The default leaves the reason out: no score reaches the prompt.
	early := RenderEvidence(items, EarlyReferenceOptions())
	if got := RenderEvidence(items, DefaultOptions()); strings.Contains(got, "→ 関連") || strings.Contains(got, "xxx") ||
		got != early[:strings.Index(early, "→ 関連")] {
		t.Errorf("default rendering %q carries the reason", got)
	}
}

// one renders a single high episode on 2025-12-01 with no reason, so the
// expected text is header + "[2025-12-01]\n" + body, every body line ending
// in "\n" (the last one is the empty line after the episode).
func one(user, reply string, opts Options) string {
	return RenderEvidence([]Evidence{{
		OccurredAt: at("2025-12-01T00:00:00Z"), UserText: user, ReplyText: reply, Relevance: High,
	}}, opts)
}

func TestRenderEvidenceClipping(t *testing.T) {
	tests := []struct {
		name        string
		user, reply string
		body        string
	}{
		{"120 user kept", r("あ", 120), "", "User: 「" + r("あ", 120) + "」\n"},
		{"121 user clipped", r("あ", 121), "", "User: 「" + r("あ", 120) + "…」\n"},
		{"160 reply kept", "", r("い", 160), "Partner: 「" + r("い", 160) + "」\n"},
		{"161 reply clipped", "", r("い", 161), "Partner: 「" + r("い", 160) + "…」\n"},
		// compacted to 119 う + " " + "えお" (122); the cut keeps 119 う + " ",
		// the space is trimmed before "…".
		{"trailing space trimmed", r("う", 119) + "\u3000\u3000えお", "", "User: 「" + r("う", 119) + "…」\n"},
		{"reply trailing space trimmed", "", r("か", 159) + "\n\nきく", "Partner: 「" + r("か", 159) + "…」\n"},
		{"compaction", " 一行目\r\n\n二行目\u3000\u3000三行目\t", "はい\u3000 そうです\n", "User: 「一行目 二行目 三行目」\nPartner: 「はい そうです」\n"},
		{"empty reply (notification)", "リマインダー: 歯医者 15:00", "", "User: 「リマインダー: 歯医者 15:00」\n"},
		{"whitespace-only reply", "おはよう", " \u3000\n", "User: 「おはよう」\n"},
		{"empty user", "", "おかえりなさい", "Partner: 「おかえりなさい」\n"},
		{"both empty", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := header + "[2025-12-01]\n" + tt.body
			if got := one(tt.user, tt.reply, Options{}); got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

func TestRenderEvidenceStrategies(t *testing.T) {
	tests := []struct {
		name        string
		strategy    Strategy
		user, reply string
		body        string
	}{
		{"full 420/520 kept", Full, r("あ", 420), r("い", 520),
			"User: 「" + r("あ", 420) + "」\nPartner: 「" + r("い", 520) + "」\n"},
		{"full 421/521 clipped", Full, r("あ", 421), r("い", 521),
			"User: 「" + r("あ", 420) + "…」\nPartner: 「" + r("い", 520) + "…」\n"},
		{"quote 121/161 clipped", QuoteKeyParts, r("あ", 121), r("い", 161),
			"User: 「" + r("あ", 120) + "…」\nPartner: 「" + r("い", 160) + "…」\n"},
		{"unknown strategy is quote_key_parts", Strategy(9), r("あ", 121), r("い", 161),
			"User: 「" + r("あ", 120) + "…」\nPartner: 「" + r("い", 160) + "…」\n"},
		{"summarize short", Summarize, "今週中に完成させたい", "締切は金曜日です",
			"要点: 今週中に完成させたい / 締切は金曜日です\n"},
		{"summarize no reply", Summarize, "ラーメン食べたい", "", "要点: ラーメン食べたい\n"},
		{"summarize no user", Summarize, "", "おかえり", "要点: おかえり\n"},
		{"summarize both empty", Summarize, "", "", "要点: \n"},
		{"summarize 180/220 kept", Summarize, r("あ", 180), "はい",
			"要点: " + r("あ", 180) + " / はい\n"},
		{"summarize user 181 clipped", Summarize, r("あ", 181), "はい",
			"要点: " + r("あ", 180) + "… / はい\n"},
		{"summarize reply 221 clipped", Summarize, "うん", r("い", 221),
			"要点: うん / " + r("い", 220) + "…\n"},
		// 181 + 3 + 221 = 405 > 380: the joined line is cut to 380 =
		// (180 あ + "…") + " / " + 196 い, then "…".
		{"summarize joined line clipped to 380", Summarize, r("あ", 181), r("い", 221),
			"要点: " + r("あ", 180) + "… / " + r("い", 196) + "…\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := header + "[2025-12-01]\n" + tt.body
			if got := one(tt.user, tt.reply, Options{Strategy: tt.strategy}); got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

func TestRenderEvidenceReason(t *testing.T) {
	base := Evidence{OccurredAt: at("2025-12-01T00:00:00Z"), UserText: "はい", Relevance: High}
	tests := []struct {
		name   string
		reason string
		opts   Options
		line   string // the reason line, "" for none
	}{
		{"180 kept", r("x", 180), Options{ShowReason: true}, "→ 関連: " + r("x", 180) + "\n"},
		{"181 clipped", r("x", 181), Options{ShowReason: true}, "→ 関連: " + r("x", 180) + "…\n"},
		{"compacted", "score=0.4\n  rrf=1.0", Options{ShowReason: true}, "→ 関連: score=0.4 rrf=1.0\n"},
		{"empty", "", Options{ShowReason: true}, ""},
		{"whitespace only", " \n ", Options{ShowReason: true}, ""},
		{"custom limit", "abcdef", Options{ShowReason: true, ReasonLimit: 3}, "→ 関連: abc…\n"},
		{"no limit", r("x", 300), Options{ShowReason: true, ReasonLimit: -1}, "→ 関連: " + r("x", 300) + "\n"},
		{"hidden by default", reason, Options{ShowReason: false}, ""},
		{"prefix", "近い話題", Options{ShowReason: true, RelatedPrefix: "Why: "}, "Why: 近い話題\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := base
			e.Reason = tt.reason
			want := header + "[2025-12-01]\nUser: 「はい」\n" + tt.line
			if got := RenderEvidence([]Evidence{e}, tt.opts); got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

func TestRenderEvidenceDateAndLabels(t *testing.T) {
	jst := tokyo(t)
	midnight := at("2025-11-30T16:00:00Z") // 2025-12-01 01:00 in Tokyo
	tests := []struct {
		name  string
		e     Evidence
		opts  Options
		first string // the episode's first line(s) up to the user line
		reply string // the reply label line
	}{
		{"UTC default", Evidence{OccurredAt: midnight}, Options{}, "[2025-11-30]\n", "Partner"},
		{"UTC explicit", Evidence{OccurredAt: midnight}, Options{Location: time.UTC}, "[2025-11-30]\n", "Partner"},
		{"Tokyo", Evidence{OccurredAt: midnight}, Options{Location: jst}, "[2025-12-01]\n", "Partner"},
		{"input zone ignored", Evidence{OccurredAt: midnight.In(jst)}, Options{}, "[2025-11-30]\n", "Partner"},
		{"ISO Tokyo + Persona", Evidence{OccurredAt: midnight},
			Options{DateFormat: ISOFormat, Location: jst, ReplyLabel: "Persona"},
			"[2025-12-01T01:00:00+09:00]\n", "Persona"},
		{"ISO UTC", Evidence{OccurredAt: midnight}, Options{DateFormat: ISOFormat},
			"[2025-11-30T16:00:00+00:00]\n", "Partner"},
		{"title", Evidence{OccurredAt: midnight, Title: " プロジェクトXの\n進捗について "}, Options{Location: jst},
			"[2025-12-01] プロジェクトXの 進捗について\n", "Partner"},
		{"unknown date", Evidence{}, Options{}, "", "Partner"},
		{"unknown date with title", Evidence{Title: "旅行"}, Options{}, "旅行\n", "Partner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.e
			e.UserText, e.ReplyText, e.Relevance = "ただいま", "おかえり", High
			want := header + tt.first + "User: 「ただいま」\n" + tt.reply + ": 「おかえり」\n"
			if got := RenderEvidence([]Evidence{e}, tt.opts); got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

// TestReferenceRenderings: the reference preset renders as the original at
// commit 39ca2e7 (memory_pack_builder.py: its section header, the episode's
// local time in ISO form with its offset, the reply as Persona); the
// rendering of 2025-12-30 and earlier stays as EarlyReferenceOptions.
func TestReferenceRenderings(t *testing.T) {
	e := []Evidence{{OccurredAt: at("2025-12-01T12:00:00Z"), UserText: " ラーメン\n食べた ", ReplyText: "いいね", Relevance: High,
		Reason: "heuristic rerank: score=0.600 rrf=1.000 lex=0.114 rec=0.097"}}
	ref := ReferenceOptions()
	ref.Location = tokyo(t)
	want := "<<<COCORO_GHOST_SECTION:EPISODE_EVIDENCE>>>\n以下は現在の会話に関連する過去のやりとりです。\n\n" +
		"[2025-12-01T21:00:00+09:00]\nUser: 「ラーメン 食べた」\nPersona: 「いいね」\n" +
		"→ 関連: heuristic rerank: score=0.600 rrf=1.000 lex=0.114 rec=0.097\n" // Assemble ends the block with "\n\n"
	if got := RenderEvidence(e, ref); got != want {
		t.Errorf("39ca2e7:\ngot  %q\nwant %q", got, want)
	}
	want = "[EPISODE_EVIDENCE]\n以下は現在の会話に関連する過去のやりとりです。\n\n" +
		"[2025-12-01]\nUser: 「ラーメン 食べた」\nPartner: 「いいね」\n" +
		"→ 関連: heuristic rerank: score=0.600 rrf=1.000 lex=0.114 rec=0.097\n"
	if got := RenderEvidence(e, EarlyReferenceOptions()); got != want {
		t.Errorf("2025-12-30:\ngot  %q\nwant %q", got, want)
	}
}

func TestRenderEvidenceCustomText(t *testing.T) {
	opts := Options{
		Header:       "<<<COCORO_GHOST_SECTION:EPISODE_EVIDENCE>>>",
		Intro:        "Related past exchanges:",
		UserLabel:    "Me",
		SummaryLabel: "Gist",
	}
	e := []Evidence{{OccurredAt: at("2025-12-01T00:00:00Z"), UserText: "a", ReplyText: "b", Relevance: High}}
	want := "<<<COCORO_GHOST_SECTION:EPISODE_EVIDENCE>>>\nRelated past exchanges:\n\n[2025-12-01]\nMe: 「a」\nPartner: 「b」\n"
	if got := RenderEvidence(e, opts); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	opts.Strategy = Summarize
	want = "<<<COCORO_GHOST_SECTION:EPISODE_EVIDENCE>>>\nRelated past exchanges:\n\n[2025-12-01]\nGist: a / b\n"
	if got := RenderEvidence(e, opts); got != want {
		t.Errorf("summarize: got  %q\nwant %q", got, want)
	}
}

func TestShouldInject(t *testing.T) {
	h, m, z := Evidence{Relevance: High}, Evidence{Relevance: Medium}, Evidence{}
	tests := []struct {
		name  string
		items []Evidence
		want  bool
	}{
		{"nil", nil, false},
		{"empty", []Evidence{}, false},
		{"1 high", []Evidence{h}, true},
		{"2 medium", []Evidence{m, m}, true},
		{"1 medium", []Evidence{m}, false},
		{"high after medium", []Evidence{m, h}, true},
		{"3 without relevance", []Evidence{z, z, z}, false},
		{"1 medium + unset", []Evidence{m, z}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShouldInject(tt.items); got != tt.want {
				t.Errorf("ShouldInject = %v, want %v", got, tt.want)
			}
			got := RenderEvidence(tt.items, Options{})
			if (got != "") != tt.want {
				t.Errorf("RenderEvidence = %q, want injected %v", got, tt.want)
			}
		})
	}
}

func TestRenderEvidenceTwoMedium(t *testing.T) {
	items := []Evidence{
		{OccurredAt: at("2025-12-01T00:00:00Z"), UserText: "a", Relevance: Medium},
		{OccurredAt: at("2025-12-02T00:00:00Z"), ReplyText: "b", Relevance: Medium},
	}
	want := header + "[2025-12-01]\nUser: 「a」\n\n[2025-12-02]\nPartner: 「b」\n"
	if got := RenderEvidence(items, Options{}); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestStrings(t *testing.T) {
	for v, want := range map[interface{ String() string }]string{
		High: "high", Medium: "medium", Relevance(0): "Relevance(0)",
		QuoteKeyParts: "quote_key_parts", Summarize: "summarize", Full: "full", Strategy(7): "Strategy(7)",
	} {
		if got := v.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

func TestParseStrategy(t *testing.T) {
	tests := []struct {
		in   string
		want Strategy
		err  bool
	}{
		{"quote_key_parts", QuoteKeyParts, false},
		{"summarize", Summarize, false},
		{"full", Full, false},
		{" full\n", Full, false},
		{"", QuoteKeyParts, false},
		{"Full", QuoteKeyParts, true},
		{"verbatim", QuoteKeyParts, true},
		{"quote-key-parts", QuoteKeyParts, true},
	}
	for _, tt := range tests {
		got, err := ParseStrategy(tt.in)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("ParseStrategy(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil {
			if round, _ := ParseStrategy(got.String()); round != got {
				t.Errorf("ParseStrategy(%q) does not round-trip", got.String())
			}
			continue
		}
		if !errors.Is(err, ErrUnknownStrategy) {
			t.Errorf("ParseStrategy(%q) error %v does not wrap ErrUnknownStrategy", tt.in, err)
		}
		if want := `memorypack: unknown injection strategy "` + tt.in + `" (want quote_key_parts, summarize or full)`; err.Error() != want {
			t.Errorf("ParseStrategy(%q) error %q, want %q", tt.in, err, want)
		}
	}
}

// TestIntroFor: the intro in each language a message is written in, the
// reference's Japanese for Japanese.
func TestIntroFor(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range []lang.Language{lang.Japanese, lang.Chinese, lang.Korean, lang.Other} {
		in := IntroFor(l)
		if in == "" || seen[in] {
			t.Errorf("IntroFor(%q) = %q: empty, or another language's", l, in)
		}
		seen[in] = true
		if got := lang.Detect(in, lang.Chinese); got != l {
			t.Errorf("IntroFor(%q) = %q, written in %q", l, in, got)
		}
	}
	if IntroFor(lang.Japanese) != DefaultIntro {
		t.Errorf("the Japanese intro is not the reference's")
	}
}
