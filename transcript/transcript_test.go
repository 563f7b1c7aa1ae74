package transcript

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
)

// parseTranscript reads text and returns what Read reported, one
// string per episode or error.
func parseTranscript(t *testing.T, text string, opts Options) (eps, bads []string) {
	t.Helper()
	err := Read(strings.NewReader(text), opts,
		func(line int, e episode.Episode) error {
			eps = append(eps, fmt.Sprintf("%d %s|%s|%q|%q|%s", line, e.ExternalID, e.Source, e.UserText, e.ReplyText, e.OccurredAt.Format(time.RFC3339)))
			return nil
		},
		func(line int, err error) error {
			bads = append(bads, fmt.Sprintf("%d: %v", line, err))
			return nil
		})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return eps, bads
}

func TestReadTranscript(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		text string
		opts Options
		eps  []string
		bads []string // line: a fragment of the error
	}{
		{
			name: "one exchange",
			text: "# user: haruka\n\n@ 2025-06-01 21:30 +09:00\n> こんにちは\n< やあ\n",
			eps:  []string{`3 haruka:2025-06-01T12:30:00Z:1|chat|"こんにちは"|"やあ"|2025-06-01T21:30:00+09:00`},
		},
		{
			name: "CRLF, BOM, comments, no final newline, multi-line messages",
			text: "\ufeff# user: haruka\r\n# メモ\r\n@ 2025-06-01T12:30:00Z\r\n> 一行目\r\n>\r\n> 三行目\r\n# inside a block\r\n< 返事\r\n<  二行目",
			eps:  []string{`3 haruka:2025-06-01T12:30:00Z:1|chat|"一行目\n\n三行目"|"返事\n 二行目"|2025-06-01T12:30:00Z`},
		},
		{
			name: "same second twice, switching users, -user default",
			text: "@ 2025-06-01 21:30 +09:00\n> a\n\n@ 2025-06-01 12:30 Z\n> b\n\n# user: kenta\n@ 2025-06-01 21:30:00 +0900\n> c\n",
			opts: Options{User: "haruka"},
			eps: []string{
				`1 haruka:2025-06-01T12:30:00Z:1|notification|"a"|""|2025-06-01T21:30:00+09:00`,
				`4 haruka:2025-06-01T12:30:00Z:2|notification|"b"|""|2025-06-01T12:30:00Z`,
				`8 kenta:2025-06-01T12:30:00Z:1|notification|"c"|""|2025-06-01T21:30:00+09:00`,
			},
		},
		{
			name: "explicit source, proactive, slashes, a new @ ends a block",
			text: "# user: u\n@ 2025/06/01 08:00 +09:00 [reminder]\n> 歯医者\n@ 2025-06-02 08:00 UTC\n< おはよう\n",
			eps: []string{
				`2 u:2025-05-31T23:00:00Z:1|reminder|"歯医者"|""|2025-06-01T08:00:00+09:00`,
				`4 u:2025-06-02T08:00:00Z:1|proactive|""|"おはよう"|2025-06-02T08:00:00Z`,
			},
		},
		{
			name: "zone from # tz and from -tz",
			text: "# user: u\n@ 2025-06-01 21:30\n> a\n\n# tz: UTC\n@ 2025-06-01 21:30\n> b\n",
			opts: Options{Location: tokyo},
			eps: []string{
				`2 u:2025-06-01T12:30:00Z:1|notification|"a"|""|2025-06-01T21:30:00+09:00`,
				`6 u:2025-06-01T21:30:00Z:1|notification|"b"|""|2025-06-01T21:30:00Z`,
			},
		},
		{
			name: "malformed blocks are one error each; good blocks survive",
			text: "# user: u\n" +
				"@ 2025-06-01 21:30\n> no zone\n\n" + // 2
				"@ yesterday\n> bad time\n\n" + // 5
				"@ 2025-06-01 22:00 +09:00\n< reply\n> after reply\n\n" + // 8..10
				"> no block\n< still none\n\n" + // 12
				"@ 2025-06-01 23:00 +09:00\nplain text\n\n" + // 15..16
				"@ 2025-06-01 23:30 +09:00\n\n" + // 18: no message
				"@ 2025-06-02 09:00 +09:00 []\n> x\n\n" + // 20
				"# user:\n\n" + // 23
				"# tz: Mars/Olympus\n\n" + // 25
				"@ 2025-06-03 09:00 +09:00\n> good\n< ok\n", // 27
			bads: []string{
				"2: timestamp \"2025-06-01 21:30\" has no UTC offset",
				"5: timestamp \"yesterday\"",
				"10: a \">\" line after the reply",
				"12: a \">\" line outside a block",
				"16: \"plain text\": a line must be blank or start with",
				"18: the block has no message",
				"20: empty \"[]\"",
				"23: \"# user:\" names no one",
				"25: \"# tz: Mars/Olympus\"",
			},
			eps: []string{`27 u:2025-06-03T00:00:00Z:1|chat|"good"|"ok"|2025-06-03T09:00:00+09:00`},
		},
		{
			name: "no user",
			text: "@ 2025-06-01T12:30:00Z\n> a\n",
			bads: []string{"1: the block has no user"},
		},
		{
			name: "invalid UTF-8",
			text: "# user: u\n@ 2025-06-01T12:30:00Z\n> \xff\xfe\n",
			bads: []string{"3: the line is not valid UTF-8"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eps, bads := parseTranscript(t, tc.text, tc.opts)
			if strings.Join(eps, "\n") != strings.Join(tc.eps, "\n") {
				t.Errorf("episodes:\n%s\nwant:\n%s", strings.Join(eps, "\n"), strings.Join(tc.eps, "\n"))
			}
			if len(bads) != len(tc.bads) {
				t.Fatalf("errors:\n%s\nwant %d:\n%s", strings.Join(bads, "\n"), len(tc.bads), strings.Join(tc.bads, "\n"))
			}
			for i, w := range tc.bads {
				line, frag, _ := strings.Cut(w, ": ")
				if !strings.HasPrefix(bads[i], line+": ") || !strings.Contains(bads[i], frag) {
					t.Errorf("error %d: %q, want %q", i, bads[i], w)
				}
			}
		})
	}
}

func TestReadTranscriptStopsWhenTold(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Read(strings.NewReader("# user: u\n> stray\n\n@ 2025-06-01T12:30:00Z\n> a\n"), Options{},
		func(int, episode.Episode) error { n++; return nil },
		func(int, error) error { return stop })
	if !errors.Is(err, stop) || n != 0 {
		t.Errorf("err %v, %d episodes; want the bad callback's error before any episode", err, n)
	}
}
