package inspect_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/inspect"
	"github.com/omoide/omoide/retriever"
)

// TestPages: each page answers with what it shows, and a person or memory
// that does not exist is a 404 page saying which.
func TestPages(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	for _, c := range []struct {
		path   string
		status int
		want   []string
		not    []string
	}{
		{"/ui/", 200, []string{haruka, "kenta", html.EscapeString(odd), "mei"}, nil},
		{"/ui/?q=" + url.QueryEscape("る"), 200, []string{haruka}, []string{"kenta"}},
		{"/ui/?q=" + url.QueryEscape("%"), 200, []string{html.EscapeString(odd)}, []string{haruka}},
		{personURL(haruka), 200, []string{"駅前の新しいラーメン屋", "猫のこむぎ", "Memories, newest first"}, []string{"店長に告白"}},
		{personURL(odd), 200, []string{"新しい自転車を買った"}, nil},
		{personURL(haruka) + "?q=" + url.QueryEscape("ラーメン屋で"), 200, []string{"駅前の新しいラーメン屋"}, []string{"猫のこむぎ", "店長に告白"}},
		{personURL(haruka) + "/episodes/" + strconv.FormatInt(f.ids["knee"], 10), 200, []string{"膝が痛くて", "無理しないでね", "external id", "knee"}, nil},
		{personURL("nobody"), 404, []string{`No person named &#34;nobody&#34; is stored here.`}, nil},
		{personURL(haruka) + "/episodes/999999", 404, []string{haruka + " has no memory 999999."}, nil},
		// Another person's memory, and one above the ceiling, are as absent.
		{personURL(haruka) + "/episodes/" + strconv.FormatInt(f.ids["camp"], 10), 404, []string{"has no memory"}, []string{"キャンプ"}},
		{personURL(haruka) + "/episodes/" + strconv.FormatInt(f.ids["secret"], 10), 404, []string{"has no memory"}, []string{"店長"}},
		{personURL(haruka) + "/episodes/x", 400, []string{"is no episode id"}, nil},
		{personURL(haruka) + "?after=bogus", 400, []string{"cursor"}, nil},
		{"/ui/nowhere", 404, []string{"no page /ui/nowhere"}, nil},
	} {
		status, body, _ := f.get(t, c.path)
		if status != c.status {
			t.Errorf("GET %s: %d, want %d\n%s", c.path, status, c.status, body)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s lacks %q", c.path, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(body, n) {
				t.Errorf("GET %s shows %q", c.path, n)
			}
		}
	}
}

// TestNothingRuns: every page carries a policy that runs no inline script,
// loads its one script from the inspector, and shows a hostile text as text.
func TestNothingRuns(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	ask := "/ui/ask?" + url.Values{"user": {haruka}, "text": {"それは何？ img"}}.Encode()
	for _, path := range []string{"/ui/", personURL(haruka), personURL(haruka) + "/episodes/" + strconv.FormatInt(f.ids["hostile"], 10), ask, "/ui/nowhere"} {
		_, body, h := f.get(t, path)
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		if strings.Contains(body, "<img") || strings.Contains(body, "<script>") {
			t.Errorf("%s: markup of an episode's text reached the page unescaped", path)
		}
		for _, tag := range regexp.MustCompile(`<[a-z][^>]*>`).FindAllString(body, -1) {
			if regexp.MustCompile(`(?i)\son[a-z]+=`).MatchString(tag) {
				t.Errorf("%s: an event handler attribute: %s", path, tag)
			}
		}
		for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(body, -1) {
			if !strings.Contains(tag, `src="/ui/static/inspect.js"`) {
				t.Errorf("%s: a script not from the inspector: %s", path, tag)
			}
		}
	}
	_, body, _ := f.get(t, personURL(haruka))
	if !strings.Contains(body, html.EscapeString(`<img src=x onerror="document.title='pwned'">`)) {
		t.Error("the hostile text is not shown, escaped, on the person's page")
	}
	status, js, h := f.get(t, "/ui/static/inspect.js")
	if status != 200 || !strings.Contains(js, "data-confirm") || !strings.HasPrefix(h.Get("Content-Type"), "text/javascript") {
		t.Errorf("the script: %d %q", status, h.Get("Content-Type"))
	}
}

// TestCeiling: an episode above the ceiling appears on no page, in no
// search, export or retrieval; a ceiling that admits it shows it as such.
func TestCeiling(t *testing.T) {
	secretID := func(f *fixture) string { return strconv.FormatInt(f.ids["secret"], 10) }
	for _, c := range []struct {
		ceiling episode.Sensitivity
		shown   bool
		count   int // haruka's memories the ceiling shows
	}{{episode.SensitivityNormal, false, 5}, {episode.SensitivitySecret, true, 7}} {
		f := newFixture(t, inspect.Config{MaxSensitivity: c.ceiling})
		// The ask page searches as far as the ceiling goes; at normal, the
		// form's own level is left to the preset (asking for secret there
		// is refused before any retrieval, which would show nothing either way).
		ask := url.Values{"user": {haruka}, "text": {"ラーメン屋の店長"}, "recent": {""}, "why": {secretID(f)}}
		if c.shown {
			ask.Set("sens", "secret")
		}
		detailStatus := map[bool]int{false: 404, true: 200}[c.shown]
		for _, p := range []struct {
			path   string
			status int
			also   string // what the page shows whatever the ceiling: it is the page, not an error
		}{
			{personURL(haruka), 200, "味噌ラーメン"},
			{personURL(haruka) + "?q=" + url.QueryEscape("店長に告白"), 200, "Search these memories"},
			{personURL(haruka) + "/export.jsonl", 200, "味噌ラーメン"},
			{"/ui/ask?" + ask.Encode(), detailStatus, "駅前の新しいラーメン屋"}, // why not the secret: a memory it does not have, at normal
			{personURL(haruka) + "/episodes/" + secretID(f), detailStatus, ""},
		} {
			status, body, _ := f.get(t, p.path)
			if status != p.status || !strings.Contains(body, p.also) {
				t.Errorf("ceiling %s: %s: %d, want %d holding %q", c.ceiling, p.path, status, p.status, p.also)
			}
			if got := strings.Contains(body, "内緒にするね") || strings.Contains(body, "告白された"); got != c.shown {
				t.Errorf("ceiling %s: %s (%d) shows the secret: %v, want %v", c.ceiling, p.path, status, got, c.shown)
			}
		}
		_, body, _ := f.get(t, personURL(haruka))
		if want := fmt.Sprintf("%d memories up to %s", c.count, c.ceiling); !strings.Contains(body, want) {
			t.Errorf("ceiling %s: the page does not say %q", c.ceiling, want)
		}
		if c.shown && !strings.Contains(body, `badge sens-secret`) {
			t.Errorf("ceiling %s: the secret memory carries no badge", c.ceiling)
		}
	}
}

// TestAsk: the ask page draws one retrieval: the injected memory with its
// reason, the declined ones with theirs, the evidence exactly as a model
// gets it, and "why not" for any memory.
func TestAsk(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	text := "この前のラーメン屋、また行きたいな"
	ask := func(extra url.Values) (int, string) {
		q := url.Values{"user": {haruka}, "text": {text}, "now": {now.Format("2006-01-02T15:04:05Z07:00")}}
		for k, v := range extra {
			q[k] = v
		}
		status, body, _ := f.get(t, "/ui/ask?"+q.Encode())
		return status, body
	}
	status, body := ask(url.Values{"recent": {"user: 最近寒いね\nassistant: 温かいもの食べたいね"}, "why": {strconv.FormatInt(f.ids["cat"], 10)}})
	if status != 200 {
		t.Fatalf("ask: %d\n%s", status, body)
	}
	section, res, err := f.mem.Evidence(ctx, retriever.Request{User: haruka, Text: text, Now: now,
		Recent: []retriever.Message{{Role: "user", Content: "最近寒いね"}, {Role: "assistant", Content: "温かいもの食べたいね"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Episode.ID != f.ids["ramen"] {
		t.Fatalf("the library injects %v, want the ramen memory", res.Hits)
	}
	pre := regexp.MustCompile(`(?s)<pre class="evidence" id="evidence">(.*?)</pre>`).FindStringSubmatch(body)
	if pre == nil || html.UnescapeString(pre[1]) != section {
		t.Errorf("the evidence shown is not the library's:\n%v\nwant\n%s", pre, section)
	}
	row := func(id int64) string {
		m := regexp.MustCompile(`(?s)<tr class="[^"]*" id="c` + strconv.FormatInt(id, 10) + `">(.*?)</tr>`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return html.UnescapeString(m[1])
	}
	if r := row(f.ids["ramen"]); !strings.Contains(r, "fate-injected") || !strings.Contains(r, "reaches the level") {
		t.Errorf("the injected memory's row: %s", r)
	}
	declined := 0
	for _, id := range f.ids {
		if r := row(id); r != "" && !strings.Contains(r, "fate-injected") && strings.Contains(r, "below the level") {
			declined++
		}
	}
	if declined == 0 {
		t.Error("no declined candidate says it is below the level")
	}
	for _, w := range []string{"Why not memory", "猫", "vector q1", "bm25 q1", "Q2", "<svg class=\"bar\"", "stage"} {
		if !strings.Contains(body, w) {
			t.Errorf("the ask page lacks %q", w)
		}
	}
	if !strings.Contains(body, `id="why-not-reason"`) {
		t.Error("no reason for why not")
	}
	// An echo of the recent turns is listed as dropped before the ranking.
	status, body = ask(url.Values{"recent": {"user: 膝が痛くて今日のジョギングは休んだ\nassistant: 無理しないでね。病院には行った？"}, "text": {"膝の具合はどう？"}})
	knee := strconv.FormatInt(f.ids["knee"], 10)
	if d := regexp.MustCompile(`(?s)<li id="d` + knee + `">(.*?)</li>`).FindStringSubmatch(body); status != 200 || d == nil || !strings.Contains(d[1], "already in the recent conversation") {
		t.Errorf("the echo of the recent turns is not listed as dropped (%d)", status)
	}
	// The reference preset decides by rules: no probability, its own verdicts.
	if status, body := ask(url.Values{"preset": {"reference"}, "recent": {""}}); status != 200 || !strings.Contains(body, "rules (no relevance model)") {
		t.Errorf("reference preset: %d, decision not the rules", status)
	}
}

// TestAskBadInput: a malformed field shows the form again with the field
// marked and why; nothing is retrieved.
func TestAskBadInput(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	for _, c := range []struct {
		field, value string
		status       int
		why          string
	}{
		{"now", "yesterday", 400, "is no time"},
		{"preset", "fast", 400, "No preset &#34;fast&#34;"},
		{"recent", "hello there", 400, "Line 1 has no role"},
		{"recent", "bot: hi", 400, "role"},
		{"why", "-3", 400, "is no episode id"},
		{"why", "999999", 404, "has no memory 999999"},
		{"why", "KENTA", 400, "is no episode id"},
		{"user", "", 400, "Name a person"},
		{"user", "a/b", 400, "Name a person"}, // a name a retrieval refuses: the field's error, not a 500
		{"user", "..", 400, "Name a person"},
		{"user", "a\x00b", 400, "Name a person"},
		{"user", "nobody", 404, "No person named &#34;nobody&#34;"},
	} {
		q := url.Values{"user": {haruka}, "text": {"ラーメン"}}
		q.Set(c.field, c.value)
		if c.why == "has no memory 999999" {
			q.Set("why", c.value)
		}
		status, body, _ := f.get(t, "/ui/ask?"+q.Encode())
		if status != c.status || !strings.Contains(body, c.why) {
			t.Errorf("%s=%q: %d, want %d saying %q", c.field, c.value, status, c.status, c.why)
		}
		if !strings.Contains(body, fmt.Sprintf(`id="%s" name="%s"`, c.field, c.field)) || !regexp.MustCompile(`id="`+c.field+`"[^>]*aria-invalid="true"`).MatchString(body) {
			t.Errorf("%s=%q: the field is not marked", c.field, c.value)
		}
		if strings.Contains(body, "What the model gets") && c.status == 400 {
			t.Errorf("%s=%q: retrieved anyway", c.field, c.value)
		}
	}
	// The badge says the fate; the reason does not say it again.
	if _, body, _ := f.get(t, "/ui/ask?"+url.Values{"user": {haruka}, "text": {"味噌ラーメンの店どこだっけ"}}.Encode()); strings.Contains(body, "injected injected") || !strings.Contains(body, "injected</span>") {
		t.Errorf("the ask page says the fate twice, or injects nothing")
	}
	// Each judged candidate says which features moved its probability.
	if _, body, _ := f.get(t, "/ui/ask?"+url.Values{"user": {haruka}, "text": {"味噌ラーメンの店どこだっけ"}}.Encode()); !regexp.MustCompile(`class="small moved"[^>]*>[a-z_]+ [-0-9.e]+ [+-][0-9.]+`).MatchString(body) {
		t.Errorf("no candidate says what moved its probability")
	}
	// A long message is not repeated into every candidate's "why not?":
	// each submits the form as it stands.
	long := strings.Repeat("ラーメンの話", 1500) // 9,000 characters
	if _, body, _ := f.get(t, "/ui/ask?"+url.Values{"user": {haruka}, "text": {long}}.Encode()); strings.Count(body, long) > 4 {
		t.Errorf("the 9,000-character message is on the page %d times", strings.Count(body, long))
	}
	// A candidate's "why not?" keeps the form's clock and turns.
	qw := url.Values{"user": {haruka}, "text": {"ラーメン"}, "now": {"2026-05-09T20:00:00Z"}, "whynot": {strconv.FormatInt(f.ids["knee"], 10)}}
	if status, body, _ := f.get(t, "/ui/ask?"+qw.Encode()); status != 200 || !strings.Contains(body, `id="why-not-reason"`) || !strings.Contains(body, "2026-05-09T20:00:00Z") {
		t.Errorf("why not by the form: %d", status)
	}
	// A turn written with a Japanese keyboard's colon is a turn.
	q0 := url.Values{"user": {haruka}, "text": {"ラーメン"}, "recent": {"user：味噌ラーメン食べたい\nassistant：いいね"}}
	if status, body, _ := f.get(t, "/ui/ask?"+q0.Encode()); status != 200 || strings.Contains(body, "has no role") {
		t.Errorf("recent turns with a full-width colon: %d", status)
	}
	// Another person's memory is as absent as one never stored.
	q := url.Values{"user": {haruka}, "text": {"ラーメン"}, "why": {strconv.FormatInt(f.ids["camp"], 10)}}
	if status, body, _ := f.get(t, "/ui/ask?"+q.Encode()); status != 404 || strings.Contains(body, "kenta") {
		t.Errorf("why not another person's memory: %d", status)
	}
}

// TestDelete: a memory is deleted by a same-origin POST and retrieval stops
// returning it; a stale delete says so and changes nothing; a form from
// another site, a GET and a read-only inspector delete nothing.
func TestDelete(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	id := f.ids["ramen"]
	path := personURL(haruka) + "/episodes/" + strconv.FormatInt(id, 10) + "/delete"
	count := func() int {
		n, err := f.mem.Store.Count(ctx, haruka)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	if status, _, _ := f.post(t, path, url.Values{}, "Sec-Fetch-Site", "cross-site"); status != http.StatusForbidden || count() != before {
		t.Fatalf("a cross-site form: %d, count %d → %d", status, before, count())
	}
	if status, _, _ := f.get(t, path); status == http.StatusSeeOther || count() != before {
		t.Fatalf("a GET deleted: %d", status)
	}
	status, _, h := f.post(t, path, url.Values{})
	if status != http.StatusSeeOther || count() != before-1 {
		t.Fatalf("delete: %d, count %d → %d", status, before, count())
	}
	_, body, _ := f.get(t, h.Get("Location"))
	if !strings.Contains(body, fmt.Sprintf("Deleted memory %d", id)) || strings.Contains(body, "駅前の新しいラーメン屋") {
		t.Errorf("after the delete the page says or shows the wrong thing")
	}
	res, err := f.mem.Retrieve(ctx, retriever.Request{User: haruka, Text: "駅前のラーメン屋", Now: now, WithCandidates: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Episode.ID == id {
			t.Error("retrieval still returns the deleted memory")
		}
	}
	status, _, h = f.post(t, path, url.Values{})
	if _, body, _ := f.get(t, h.Get("Location")); status != http.StatusSeeOther || !strings.Contains(body, "was already gone: nothing was deleted") || count() != before-1 {
		t.Errorf("a stale delete: %d, count %d", status, count())
	}
	ro := newFixture(t, inspect.Config{ReadOnly: true})
	if status, body, _ := ro.post(t, personURL(haruka)+"/episodes/"+strconv.FormatInt(ro.ids["knee"], 10)+"/delete", url.Values{}); status != http.StatusForbidden || !strings.Contains(body, "read-only") {
		t.Errorf("read-only delete: %d", status)
	}
	if _, body, _ := ro.get(t, personURL(haruka)); strings.Contains(body, ">Delete<") || strings.Contains(body, "Forget this person") {
		t.Error("a read-only inspector offers to delete")
	}
}

// TestForget: a person is forgotten only when the name typed is theirs.
func TestForget(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	path := personURL(odd) + "/forget"
	status, _, h := f.post(t, path, url.Values{"confirm": {"50% off"}})
	if n, _ := f.mem.Store.Count(ctx, odd); status != http.StatusSeeOther || n != 1 {
		t.Fatalf("a wrong confirmation: %d, %d memories left", status, n)
	}
	if _, body, _ := f.get(t, h.Get("Location")); !strings.Contains(body, "Not forgotten: type the person&#39;s name") {
		t.Error("a wrong confirmation is not explained")
	}
	status, _, h = f.post(t, path, url.Values{"confirm": {odd}})
	if n, _ := f.mem.Store.Count(ctx, odd); status != http.StatusSeeOther || n != 0 {
		t.Fatalf("forget: %d, %d memories left", status, n)
	}
	if _, body, _ := f.get(t, h.Get("Location")); !strings.Contains(body, "Forgot the person: 1 memory and") {
		t.Errorf("forget is not reported")
	}
	if loc := h.Get("Location"); strings.Contains(loc, "50") || strings.Contains(loc, "off") {
		t.Errorf("after the forget the URL, which history keeps, holds the name: %s", loc)
	}
	if status, _, _ := f.get(t, personURL(odd)); status != 404 {
		t.Errorf("a forgotten person's page: %d", status)
	}
}

// TestExport: the export is the JSON Lines ingest reads, of the memories the
// ceiling shows.
func TestExport(t *testing.T) {
	f := newFixture(t, inspect.Config{MaxSensitivity: episode.SensitivityPrivate})
	status, body, h := f.get(t, personURL(haruka)+"/export.jsonl")
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "application/jsonl") {
		t.Fatalf("export: %d %s", status, h.Get("Content-Type"))
	}
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if len(lines) != 6 { // seven of haruka's, less the secret one
		t.Fatalf("export: %d lines, want 6", len(lines))
	}
	for _, l := range lines {
		var r episode.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.User != haruka {
			t.Errorf("line %q: %v", l, err)
		}
	}
}

// TestToken: with a token, a page needs it: by bearer header, or by the
// cookie the sign-in page sets (HttpOnly, SameSite=Strict).
func TestToken(t *testing.T) {
	f := newFixture(t, inspect.Config{Token: "s3cret"})
	status, _, h := f.get(t, personURL(haruka))
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/ui/signin?next=") {
		t.Fatalf("no token: %d → %s", status, h.Get("Location"))
	}
	if status, body, _ := f.post(t, personURL(haruka)+"/forget", url.Values{"confirm": {haruka}}); status != http.StatusUnauthorized || strings.Contains(body, "Forgot") {
		t.Fatalf("a forget without the token: %d", status)
	}
	if status, _, _ := f.get(t, "/ui/static/inspect.css"); status != 200 {
		t.Errorf("the sign-in page's style needs the token: %d", status)
	}
	if status, _, _ := f.get(t, personURL(haruka), "Authorization", "Bearer s3cret"); status != 200 {
		t.Errorf("bearer token: %d", status)
	}
	if status, body, _ := f.post(t, "/ui/signin", url.Values{"token": {"guess"}, "next": {personURL(haruka)}}); status != http.StatusUnauthorized || !strings.Contains(body, "That is not the token") {
		t.Errorf("a wrong token: %d", status)
	}
	status, _, h = f.post(t, "/ui/signin", url.Values{"token": {"s3cret"}, "next": {"https://evil.example/"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/ui/" {
		t.Errorf("sign-in to another site: %d → %s", status, h.Get("Location"))
	}
	cookie := h.Get("Set-Cookie")
	for _, w := range []string{"HttpOnly", "SameSite=Strict", "Path=/ui/"} {
		if !strings.Contains(cookie, w) {
			t.Errorf("cookie %q lacks %s", cookie, w)
		}
	}
	if strings.Contains(cookie, "s3cret") {
		t.Error("the cookie holds the token itself")
	}
	value := strings.SplitN(strings.SplitN(cookie, ";", 2)[0], "=", 2)[1]
	if status, _, _ := f.get(t, personURL(haruka), "Cookie", "omoide_inspect="+value); status != 200 {
		t.Errorf("signed in: %d", status)
	}
	if status, _, _ := f.get(t, personURL(haruka), "Cookie", "omoide_inspect="+strings.Repeat("0", len(value))); status != http.StatusSeeOther {
		t.Errorf("a forged cookie: %d", status)
	}
}

// TestReplay: a bot's retrieve request, pasted as JSON, is the retrieval
// the ask page shows: its message, recent turns, clock and threshold fill
// the fields; a threshold asked of the page changes the decision; a paste
// that is no request is the request field's error.
func TestReplay(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	req := `{"user": "はるか", "text": "あのラーメン屋どこだっけ", "recent": [{"role": "user", "content": "お腹すいた"}, {"role": "assistant", "content": "何食べたい？"}],
		"now": "2026-05-10T20:00:00+09:00", "inject_threshold": 0.99, "with_candidates": true}`
	status, body, _ := f.get(t, "/ui/ask?"+url.Values{"request": {req}}.Encode())
	if status != 200 || !strings.Contains(body, "あのラーメン屋どこだっけ") || !strings.Contains(body, "user: お腹すいた") ||
		!strings.Contains(body, `value="2026-05-10T20:00:00&#43;09:00"`) || !strings.Contains(body, `value="0.99"`) {
		t.Fatalf("replay: %d, the fields are not the request's", status)
	}
	if !strings.Contains(body, "Nothing injected") || !strings.Contains(body, "0.99") {
		t.Errorf("a threshold of 0.99 still injects")
	}
	// The same turn at the preset's threshold injects the ramen memory.
	q := url.Values{"user": {haruka}, "text": {"あのラーメン屋どこだっけ"}}
	if _, body, _ := f.get(t, "/ui/ask?"+q.Encode()); strings.Contains(body, "Nothing injected") {
		t.Errorf("at the preset's threshold nothing is injected: the replay's test says nothing")
	}
	for _, bad := range []string{`{"text": "x", "bogus": 1}`, `not json`, `{"text": 5}`, `{"text": "a", "text": "b"}`, "{\"text\": \"caf\xe9\"}", `{"text": "a"} {"text": "b"}`} {
		status, body, _ := f.get(t, "/ui/ask?"+url.Values{"user": {haruka}, "request": {bad}}.Encode())
		if status != 400 || !strings.Contains(body, "This is no retrieve request") || strings.Contains(body, "What the model gets") {
			t.Errorf("request %s: %d, want the request field's error and no retrieval", bad, status)
		}
	}
	if status, body, _ := f.get(t, "/ui/ask?"+url.Values{"user": {haruka}, "text": {"ラーメン"}, "threshold": {"2"}}.Encode()); status != 400 || !strings.Contains(body, "is no threshold") {
		t.Errorf("threshold 2: %d", status)
	}
}

// TestPersonPaging: a later page links back to the newest; a search says
// how many it found.
func TestPersonPaging(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	after := sqlite.Cursor{OccurredAt: now.AddDate(0, 0, -12), ID: 1 << 40}.String()
	status, body, _ := f.get(t, personURL(haruka)+"?after="+url.QueryEscape(after))
	if status != 200 || !strings.Contains(body, "← the newest") || !strings.Contains(body, "味噌ラーメン") {
		t.Errorf("a later page: %d, no link back to the newest or not the older memories", status)
	}
	if _, body, _ := f.get(t, personURL(haruka)); strings.Contains(body, "← the newest") {
		t.Error("the first page links to itself")
	}
	if _, body, _ := f.get(t, personURL(haruka)+"?q="+url.QueryEscape("ラーメン屋で")); !strings.Contains(body, "1 memory matching") {
		t.Error("a search does not say how many it found")
	}
}

// TestPersonFilters: the person's page narrowed by kind and by days (in the
// inspector's zone, the last day whole); a bad day is the form's error.
func TestPersonFilters(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	if _, err := f.mem.Add(ctx, episode.Episode{User: haruka, UserText: "誕生日は3月3日", Kind: episode.KindFact, OccurredAt: now.AddDate(0, 0, -1)}); err != nil {
		t.Fatal(err)
	}
	_, body, _ := f.get(t, personURL(haruka)+"?kind=fact")
	if !strings.Contains(body, "誕生日は3月3日") || strings.Contains(body, "味噌ラーメン") {
		t.Error("kind=fact: not only the fact")
	}
	day := now.AddDate(0, 0, -30).Format("2006-01-02") // the knee, 30 days ago
	_, body, _ = f.get(t, personURL(haruka)+"?from="+day+"&to="+day)
	if !strings.Contains(body, "膝が痛くて") || strings.Contains(body, "味噌ラーメン") || strings.Contains(body, "姉と週末") {
		t.Errorf("from=to=%s: not the day's memory alone", day)
	}
	if status, body, _ := f.get(t, personURL(haruka)+"?from=yesterday"); status != 400 || !strings.Contains(body, "is no day for from") {
		t.Errorf("from=yesterday: %d", status)
	}
	if status, body, _ := f.get(t, personURL(haruka)+"?kind=diary"); status != 400 || !strings.Contains(body, "diary") {
		t.Errorf("kind=diary: %d", status)
	}
}

// TestEdit: a memory's texts are replaced as the API's PUT replaces them: a
// new version with a new id, found by its new words, the old one gone; the
// same texts change nothing; a memory without an external id, a form from
// another site and a read-only inspector edit nothing.
func TestEdit(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	id := f.ids["ramen"]
	path := personURL(haruka) + "/episodes/" + strconv.FormatInt(id, 10) + "/edit"
	if status, _, _ := f.post(t, path, url.Values{"user_text": {"x"}}, "Sec-Fetch-Site", "cross-site"); status != http.StatusForbidden {
		t.Fatalf("a cross-site edit: %d", status)
	}
	status, _, h := f.post(t, path, url.Values{"user_text": {"駅前の新しいラーメン屋で塩ラーメンを食べたよ"}, "reply_text": {"さっぱり系だね"}})
	if status != http.StatusSeeOther || !strings.Contains(h.Get("Location"), "done=edited") {
		t.Fatalf("edit: %d %q", status, h.Get("Location"))
	}
	if _, err := f.mem.Store.Get(ctx, id); !errors.Is(err, episode.ErrNotFound) {
		t.Errorf("the old version is still stored: %v", err)
	}
	_, body, _ := f.get(t, h.Get("Location"))
	if !strings.Contains(body, "塩ラーメン") || !strings.Contains(body, fmt.Sprintf("memory %d replaced", id)) {
		t.Error("the new version's page does not show the new text and what was done")
	}
	if _, body, _ := f.get(t, personURL(haruka)+"?q="+url.QueryEscape("塩ラーメン")); !strings.Contains(body, "1 memory matching") {
		t.Error("the new words do not find the edited memory")
	}
	newPath := strings.Replace(h.Get("Location"), "?", "/edit?", 1)
	newPath = newPath[:strings.Index(newPath, "?")]
	if status, _, h := f.post(t, newPath, url.Values{"user_text": {"駅前の新しいラーメン屋で塩ラーメンを食べたよ"}, "reply_text": {"さっぱり系だね"}}); status != http.StatusSeeOther || !strings.Contains(h.Get("Location"), "done=unchanged") {
		t.Errorf("the same texts again: %d %q", status, h.Get("Location"))
	}
	noExt, err := f.mem.Add(ctx, episode.Episode{User: haruka, UserText: "外部IDのない記憶", OccurredAt: now.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if status, body, _ := f.post(t, personURL(haruka)+"/episodes/"+strconv.FormatInt(noExt[0], 10)+"/edit", url.Values{"user_text": {"変更"}}); status != 400 || !strings.Contains(body, "no external id") {
		t.Errorf("editing a memory without an external id: %d", status)
	}
	ro := newFixture(t, inspect.Config{ReadOnly: true})
	if status, _, _ := ro.post(t, personURL(haruka)+"/episodes/"+strconv.FormatInt(ro.ids["knee"], 10)+"/edit", url.Values{"user_text": {"変更"}}); status != http.StatusForbidden {
		t.Errorf("a read-only inspector edits: %d", status)
	}
}

// TestSearchPages: a search of more matches than a page pages them, best
// first, each match once, and says which it shows.
func TestSearchPages(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	var eps []episode.Episode
	for i := range 120 {
		eps = append(eps, episode.Episode{User: "rin", UserText: fmt.Sprintf("散歩%d日目、公園を歩いた", i), OccurredAt: now.Add(-time.Duration(i) * time.Hour)})
	}
	if _, err := f.mem.Add(ctx, eps...); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	next := personURL("rin") + "?" + url.Values{"q": {"公園"}}.Encode()
	pages := 0
	for next != "" && pages < 5 {
		_, body, _ := f.get(t, next)
		pages++
		for _, m := range regexp.MustCompile(`散歩\d+日目`).FindAllString(body, -1) {
			if seen[m] {
				t.Errorf("%s on two pages", m)
			}
			seen[m] = true
		}
		next = ""
		if m := regexp.MustCompile(`<a href="([^"]+)" rel="next">More matches`).FindStringSubmatch(body); m != nil {
			next = strings.ReplaceAll(m[1], "&amp;", "&")
		}
		if pages == 2 && !strings.Contains(body, "Memories 51–100 matching") || pages == 2 && !strings.Contains(body, `rel="prev"`) {
			t.Errorf("page 2 does not say which matches it shows, or has no way back")
		}
	}
	if pages != 3 || len(seen) != 120 {
		t.Errorf("%d pages, %d matches seen; want 3 and 120", pages, len(seen))
	}
	if status, _, _ := f.get(t, personURL("rin")+"?q=x&page=99"); status != 400 {
		t.Errorf("page 99: %d", status)
	}
}

// TestNewerPages: from an older page, "newer" leads back to the page before,
// each memory where it was.
func TestNewerPages(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	var eps []episode.Episode
	for i := range 120 {
		eps = append(eps, episode.Episode{User: "rin", UserText: fmt.Sprintf("日記%03d", i), OccurredAt: now.Add(-time.Duration(i) * time.Hour)})
	}
	if _, err := f.mem.Add(ctx, eps...); err != nil {
		t.Fatal(err)
	}
	entries := func(body string) string {
		return strings.Join(regexp.MustCompile(`日記\d{3}`).FindAllString(body, -1), " ")
	}
	link := func(body, rel string) string {
		m := regexp.MustCompile(`<a href="([^"]+)" rel="` + rel + `">`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return strings.ReplaceAll(m[1], "&amp;", "&")
	}
	_, p1, _ := f.get(t, personURL("rin"))
	_, p2, _ := f.get(t, link(p1, "next"))
	_, p3, _ := f.get(t, link(p2, "next"))
	if link(p1, "prev") != "" || link(p2, "prev") == "" || link(p3, "next") != "" {
		t.Fatalf("links: page 1 prev %q, page 2 prev %q, page 3 next %q", link(p1, "prev"), link(p2, "prev"), link(p3, "next"))
	}
	_, back2, _ := f.get(t, link(p3, "prev"))
	_, back1, _ := f.get(t, link(back2, "prev"))
	if entries(back2) != entries(p2) || entries(back1) != entries(p1) {
		t.Errorf("newer from page 3 is not page 2, or from there not page 1")
	}
	if link(back1, "prev") != "" {
		t.Error("the newest page, reached back, links to newer ones")
	}
}
