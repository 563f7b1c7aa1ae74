package timeexpr

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"
)

// fuzzZones are the locations FuzzParse picks from.
var fuzzZones = []string{"UTC", "Asia/Tokyo", "America/New_York", "Australia/Lord_Howe", "Pacific/Kiritimati"}

// FuzzParse checks that Parse never panics and that every window it returns
// is well formed: From < To <= start of tomorrow, both in loc, Expr is a
// non-empty part of the normalized text, and text[Start:End] normalizes to
// text containing it.
func FuzzParse(f *testing.F) {
	f.Add("先週何話したっけ", int64(1766314800), uint8(1))
	f.Add("what did we talk about last weekend?", int64(1766314800), uint8(2))
	f.Add("上周我们聊了什么", int64(1766314800), uint8(0))
	f.Add("週末は山登りに行く予定なんだけど、一緒にどう？", int64(1765868400), uint8(1))
	f.Add("we're going hiking over the weekend, but I went out on Saturday", int64(1765868400), uint8(2))
	f.Add("我打算这个周末去爬山吧", int64(1765868400), uint8(3))
	f.Add("Last Christmas, new year’s eve and the summer before last", int64(1768010400), uint8(2))
	f.Add("去年的春节、十一假期、前年夏天、五一劳动节", int64(1770685200), uint8(1))
	f.Add("작년 추석, 설 연휴, 지난 여름, 설거지", int64(1798761600), uint8(4))
	f.Add("ｹﾞｰﾑの七夕、去年の夏休み、①日前", int64(1766314800), uint8(1))
	locs := make([]*time.Location, len(fuzzZones))
	for i, name := range fuzzZones {
		locs[i] = mustLoad(f, name)
	}
	f.Fuzz(func(t *testing.T, text string, sec int64, zone uint8) {
		if got, want := Normalize(text), strings.ToLower(norm.NFKC.String(text)); got != want {
			t.Fatalf("Normalize(%q) = %q, want %q", text, got, want)
		}
		// Keep now within ±200 years of 2000 so that calendar arithmetic
		// stays far from the limits of time.Time.
		const span = 200 * 366 * 24 * 3600
		sec = 946684800 + sec%span
		loc := locs[int(zone)%len(locs)]
		now := time.Unix(sec, 0)
		w, ok := Parse(text, now, loc)
		if !ok {
			if w != (Window{}) {
				t.Fatalf("Parse(%q) = %+v with ok false", text, w)
			}
			return
		}
		y, m, d := now.In(loc).Date()
		tomorrow := time.Date(y, m, d+1, 0, 0, 0, 0, loc)
		if !w.From.Before(w.To) || w.To.After(tomorrow) {
			t.Fatalf("Parse(%q) at %v = [%v, %v), tomorrow %v", text, now, w.From, w.To, tomorrow)
		}
		if w.From.Location() != loc || w.To.Location() != loc {
			t.Fatalf("Parse(%q) window not in %v", text, loc)
		}
		if w.Expr == "" || !strings.Contains(Normalize(text), w.Expr) {
			t.Fatalf("Parse(%q).Expr = %q", text, w.Expr)
		}
		if w.Start < 0 || w.Start > w.End || w.End > len(text) || !strings.Contains(Normalize(text[w.Start:w.End]), w.Expr) {
			t.Fatalf("Parse(%q) = %q written at [%d, %d)", text, w.Expr, w.Start, w.End)
		}
	})
}
