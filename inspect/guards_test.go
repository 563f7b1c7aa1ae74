package inspect_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/inspect"
)

// count is how many memories user has, of every level.
func (f *fixture) count(t *testing.T, user string) int {
	t.Helper()
	n, err := f.mem.Store.Count(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWrongBearer: a wrong bearer token opens nothing: no page, no export,
// no delete.
func TestWrongBearer(t *testing.T) {
	f := newFixture(t, inspect.Config{Token: "s3cret"})
	before := f.count(t, haruka)
	for _, bearer := range []string{"Bearer guess", "Bearer s3cret-and-more", "Bearer ", "bearer S3CRET"} {
		// "Bearer " arrives as "Bearer" (header parsing trims it): no token, the sign-in.
		if status, body, _ := f.get(t, personURL(haruka), "Authorization", bearer); status == 200 || strings.Contains(body, "味噌ラーメン") {
			t.Errorf("%q: the person's page answered %d", bearer, status)
		}
		if status, body, _ := f.get(t, personURL(haruka)+"/export.jsonl", "Authorization", bearer); status != http.StatusUnauthorized || strings.Contains(body, "味噌ラーメン") {
			t.Errorf("%q: the export answered %d", bearer, status)
		}
		path := personURL(haruka) + "/episodes/" + strconv.FormatInt(f.ids["ramen"], 10) + "/delete"
		if status, _, _ := f.post(t, path, url.Values{}, "Authorization", bearer); status != http.StatusUnauthorized {
			t.Errorf("%q: a delete answered %d", bearer, status)
		}
	}
	if n := f.count(t, haruka); n != before {
		t.Errorf("wrong tokens deleted: %d → %d memories", before, n)
	}
	if status, _, _ := f.get(t, personURL(haruka), "Authorization", "Bearer s3cret"); status != 200 {
		t.Errorf("the right token: %d", status)
	}
}

// TestDeleteOnlyWhatIsShown: a delete through a person's page deletes only
// that person's memory the ceiling shows; another person's id, or an id
// above the ceiling, is as absent, and stays stored.
func TestDeleteOnlyWhatIsShown(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	for _, c := range []struct {
		name, person, ext string
	}{
		{"another person's memory", haruka, "camp"},      // kenta's
		{"above the ceiling", haruka, "secret"},          // haruka's own, secret
		{"the private one at normal", haruka, "private"}, // haruka's own, private
		{"through the other's page", "kenta", "ramen"},   // haruka's, by kenta's path
	} {
		id := f.ids[c.ext]
		status, body, _ := f.post(t, personURL(c.person)+"/episodes/"+strconv.FormatInt(id, 10)+"/delete", url.Values{})
		if status != http.StatusNotFound || !strings.Contains(body, fmt.Sprintf("has no memory %d", id)) {
			t.Errorf("%s: %d, want 404 saying it has no such memory", c.name, status)
		}
		if _, err := f.mem.Store.Get(ctx, id); err != nil {
			t.Errorf("%s: memory %d is gone: %v", c.name, id, err)
		}
	}
}

// TestReadOnlyForget: a read-only inspector forgets nobody, even with the
// name typed right.
func TestReadOnlyForget(t *testing.T) {
	f := newFixture(t, inspect.Config{ReadOnly: true})
	status, body, _ := f.post(t, personURL(odd)+"/forget", url.Values{"confirm": {odd}})
	if status != http.StatusForbidden || !strings.Contains(body, "read-only") {
		t.Errorf("a read-only forget: %d", status)
	}
	if n := f.count(t, odd); n != 1 {
		t.Errorf("%q has %d memories after a read-only forget, want 1", odd, n)
	}
}

// TestAskCeilingReferencePreset: the reference preset's own filter admits
// secret episodes, so only the inspector's ceiling keeps them off the ask
// page; at private it shows the private memory and still not the secret.
func TestAskCeilingReferencePreset(t *testing.T) {
	for _, c := range []struct {
		ceiling         episode.Sensitivity
		private, secret bool
	}{{episode.SensitivityNormal, false, false}, {episode.SensitivityPrivate, true, false}, {episode.SensitivitySecret, true, true}} {
		f := newFixture(t, inspect.Config{MaxSensitivity: c.ceiling})
		for _, text := range []string{"ラーメン屋の店長に告白", "転職を考えている"} {
			q := url.Values{"user": {haruka}, "text": {text}, "recent": {""}, "preset": {omoide.PresetReference}}
			status, body, _ := f.get(t, "/ui/ask?"+q.Encode())
			if status != 200 || !strings.Contains(body, "駅前の新しいラーメン屋") && !strings.Contains(body, "Candidates") {
				t.Fatalf("ceiling %s, %q: %d, the retrieval did not run", c.ceiling, text, status)
			}
			if got := strings.Contains(body, "告白された"); got != c.secret {
				t.Errorf("ceiling %s, %q: the secret memory shown %v, want %v", c.ceiling, text, got, c.secret)
			}
			if got := strings.Contains(body, "実は転職"); got != c.private {
				t.Errorf("ceiling %s, %q: the private memory shown %v, want %v", c.ceiling, text, got, c.private)
			}
		}
	}
}

// TestEveryAnswerIsUncached: every answer, pages, errors, the sign-in
// page, the export and the static files, tells the browser to keep no copy
// and to send no referrer (the ask page's URL holds a message).
func TestEveryAnswerIsUncached(t *testing.T) {
	for _, token := range []string{"", "s3cret"} {
		f := newFixture(t, inspect.Config{Token: token})
		auth := []string{"Authorization", "Bearer s3cret"}
		for _, p := range []string{"/ui/", personURL(haruka), personURL(haruka) + "/episodes/" + strconv.FormatInt(f.ids["ramen"], 10),
			personURL(haruka) + "/export.jsonl", "/ui/ask?" + url.Values{"user": {haruka}, "text": {"ラーメン"}}.Encode(),
			"/ui/signin", "/ui/nothing", personURL("nobody"), "/ui/static/inspect.js"} {
			for _, hd := range [][]string{nil, auth} {
				status, _, h := f.get(t, p, hd...)
				if h.Get("Cache-Control") != "no-store" || h.Get("Referrer-Policy") != "no-referrer" {
					t.Errorf("token %q, %s (%d): Cache-Control %q, Referrer-Policy %q", token, p, status, h.Get("Cache-Control"), h.Get("Referrer-Policy"))
				}
			}
		}
	}
}

// TestHosts: without a token the inspector answers only under loopback
// names and the hosts it was given, so that a page of another site that
// rebinds its name to 127.0.0.1 reads and deletes nothing; with a token,
// the token decides.
func TestHosts(t *testing.T) {
	f := newFixture(t, inspect.Config{Hosts: []string{"omoide.lan"}})
	port := f.srv.Listener.Addr().String()
	port = port[strings.LastIndex(port, ":"):]
	id := strconv.FormatInt(f.ids["ramen"], 10)
	for _, host := range []string{"evil.example" + port, "127.0.0.1.evil.example" + port, "localhost.evil.example" + port, "10.1.2.3" + port} {
		if status, body, _ := f.get(t, personURL(haruka)+"/export.jsonl", "Host", host); status != http.StatusMisdirectedRequest || strings.Contains(body, "味噌") {
			t.Errorf("Host %s: the export answered %d", host, status)
		}
		if status, body, _ := f.get(t, "/ui/", "Host", host); status != http.StatusMisdirectedRequest || strings.Contains(body, haruka) || strings.Contains(body, "memory.db") {
			t.Errorf("Host %s: the people page answered %d", host, status)
		}
		status, _, _ := f.post(t, personURL(haruka)+"/episodes/"+id+"/delete", url.Values{}, "Host", host, "Origin", "http://"+host)
		if status != http.StatusMisdirectedRequest {
			t.Errorf("Host %s: a delete answered %d", host, status)
		}
	}
	if _, err := f.mem.Store.Get(ctx, f.ids["ramen"]); err != nil {
		t.Fatalf("a rebinding page deleted: %v", err)
	}
	for _, host := range []string{"127.0.0.1" + port, "localhost" + port, "LOCALHOST" + port, "[::1]" + port, "omoide.lan" + port, "app.localhost" + port} {
		if status, _, _ := f.get(t, personURL(haruka), "Host", host); status != 200 {
			t.Errorf("Host %s: %d, want 200", host, status)
		}
	}
	tf := newFixture(t, inspect.Config{Token: "s3cret"})
	if status, _, _ := tf.get(t, personURL(haruka), "Host", "evil.example"+port); status != http.StatusSeeOther {
		t.Errorf("with a token, another Host without it: %d, want the sign-in", status)
	}
	if status, _, _ := tf.get(t, personURL(haruka), "Host", "omoide.example.com", "Authorization", "Bearer s3cret"); status != 200 {
		t.Errorf("with a token, another Host with it: %d", status)
	}
}

// TestNoRedirectOfUncleanPaths: a path with an empty or dot segment is a
// 400, never a redirect to the cleaned path (which a client follows with
// the same method and body: a delete's form sent again to the person's
// forget); the inspector's only redirects are its own 303s.
func TestNoRedirectOfUncleanPaths(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	id := strconv.FormatInt(f.ids["ramen"], 10)
	person := personURL(haruka)
	for _, p := range []string{
		person + "/episodes/" + id + "/delete/..", person + "/episodes/../forget", person + "/./forget",
		"/ui//people", person + "//episodes/" + id, "/ui/static/../templates/layout.html", "/ui/%2e%2e/", "/ui/people/%2E/forget",
		person + "/episodes/" + id + "/",
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			status, _, h := f.do(t, method, p, url.Values{"confirm": {haruka}}, "Sec-Fetch-Site", "same-origin")
			if status != http.StatusBadRequest || h.Get("Location") != "" {
				t.Errorf("%s %s: %d → %q, want 400 and no redirect", method, p, status, h.Get("Location"))
			}
		}
	}
	if n := f.count(t, haruka); n != 7 {
		t.Errorf("haruka has %d memories after unclean paths, want 7", n)
	}
	if status, _, h := f.get(t, "/ui"); status != http.StatusSeeOther || h.Get("Location") != "/ui/" {
		t.Errorf("GET /ui: %d → %q, want 303 to /ui/", status, h.Get("Location"))
	}
	if status, _, h := f.post(t, "/ui", url.Values{}); status != http.StatusNotFound || h.Get("Location") != "" {
		t.Errorf("POST /ui: %d → %q, want 404", status, h.Get("Location"))
	}
	// No listing of the static folder, and none of http.FileServer's redirects.
	for p, want := range map[string]int{"/ui/static/": 400, "/ui/static/index.html": 404, "/ui/static/nothing.js": 404, "/ui/static": 404} {
		if status, _, h := f.get(t, p); status != want || h.Get("Location") != "" {
			t.Errorf("GET %s: %d → %q, want %d", p, status, h.Get("Location"), want)
		}
	}
}

// TestFlashIsTheServers: a page's status line says only what the server's
// own codes say: no text from a link.
func TestFlashIsTheServers(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	planted := "Your session expired: sign in at evil.example"
	for _, q := range []string{"flash=" + url.QueryEscape(planted), "done=" + url.QueryEscape(planted), "done=deleted&id=" + url.QueryEscape(planted),
		"done=forgot&n=-3", "done=gone"} {
		for _, p := range []string{"/ui/", personURL(haruka), personURL(haruka) + "/episodes/" + strconv.FormatInt(f.ids["ramen"], 10)} {
			status, body, _ := f.get(t, p+"?"+q)
			if status != 200 || strings.Contains(body, "evil.example") || strings.Contains(body, `class="flash"`) {
				t.Errorf("%s?%s: %d, a status line shown", p, q, status)
			}
		}
	}
	if _, body, _ := f.get(t, "/ui/?done=forgot&n=3"); !strings.Contains(body, "Forgot the person: 3 memories") {
		t.Error("the server's own code shows no status line")
	}
}

// TestSessions: a sign-in's cookie ends at sign-out, after SessionLifetime,
// and with the process; it proves nothing to another inspector with the
// same token.
func TestSessions(t *testing.T) {
	f := newFixture(t, inspect.Config{Token: "s3cret"})
	clock := time.Now()
	inspect.SetClock(f.h, func() time.Time { return clock })
	signIn := func(f *fixture) string {
		t.Helper()
		status, _, h := f.post(t, "/ui/signin", url.Values{"token": {"s3cret"}})
		c := h.Get("Set-Cookie")
		if status != http.StatusSeeOther || !strings.Contains(c, "Max-Age=43200") || !strings.Contains(c, "Expires=") {
			t.Fatalf("sign-in: %d, cookie %q without a lifetime", status, c)
		}
		return "omoide_inspect=" + strings.SplitN(strings.SplitN(c, ";", 2)[0], "=", 2)[1]
	}
	signedIn := func(f *fixture, cookie string) bool {
		t.Helper()
		status, _, _ := f.get(t, personURL(haruka), "Cookie", cookie)
		return status == 200
	}
	a, b := signIn(f), signIn(f)
	if a == b {
		t.Error("two sign-ins got the same cookie")
	}
	if !signedIn(f, a) || !signedIn(f, b) {
		t.Fatal("a fresh session does not open the pages")
	}
	if status, _, _ := f.post(t, "/ui/signout", url.Values{}, "Cookie", a); status != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", status)
	}
	if signedIn(f, a) {
		t.Error("a cookie kept after sign-out still opens the pages")
	}
	if !signedIn(f, b) {
		t.Error("one sign-out ended another browser's session")
	}
	other := newFixture(t, inspect.Config{Token: "s3cret"})
	if signedIn(other, b) {
		t.Error("another inspector with the same token takes this one's cookie")
	}
	clock = clock.Add(inspect.SessionLifetime + time.Second)
	if signedIn(f, b) {
		t.Error("a session outlived SessionLifetime")
	}
}

// TestSignInLimited: MaxFailures wrong tokens from one address within
// FailureWindow, and the next try is refused, the right token too, until
// the window ends.
func TestSignInLimited(t *testing.T) {
	f := newFixture(t, inspect.Config{Token: "s3cret"})
	clock := time.Now()
	inspect.SetClock(f.h, func() time.Time { return clock })
	for i := 0; i < inspect.MaxFailures; i++ {
		if status, _, _ := f.post(t, "/ui/signin", url.Values{"token": {fmt.Sprintf("guess%d", i)}}); status != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %d", i, status)
		}
	}
	status, _, h := f.post(t, "/ui/signin", url.Values{"token": {"s3cret"}})
	if status != http.StatusTooManyRequests || h.Get("Retry-After") == "" || h.Get("Set-Cookie") != "" {
		t.Errorf("after %d wrong tokens, the right one: %d (Retry-After %q)", inspect.MaxFailures, status, h.Get("Retry-After"))
	}
	if status, _, _ := f.get(t, personURL(haruka), "Authorization", "Bearer s3cret"); status != http.StatusTooManyRequests {
		t.Errorf("a bearer during the wait: %d", status)
	}
	clock = clock.Add(inspect.FailureWindow)
	if status, _, _ := f.post(t, "/ui/signin", url.Values{"token": {"s3cret"}}); status != http.StatusSeeOther {
		t.Errorf("after the window, the right token: %d", status)
	}
	// Wrong bearers count as wrong sign-ins.
	for i := 0; i < inspect.MaxFailures; i++ {
		if status, _, _ := f.get(t, personURL(haruka), "Authorization", fmt.Sprintf("Bearer guess%d", i)); status != http.StatusUnauthorized {
			t.Fatalf("wrong bearer %d: %d", i, status)
		}
	}
	if status, _, _ := f.post(t, "/ui/signin", url.Values{"token": {"s3cret"}}); status != http.StatusTooManyRequests {
		t.Errorf("after %d wrong bearers, a sign-in: %d, want 429", inspect.MaxFailures, status)
	}
}

// TestNothingShownBeforeSignIn: the sign-in and 401 pages say nothing of
// the store (its file, embedder, analyzer, ceiling) to one without the
// token; once signed in, the footer says it.
func TestNothingShownBeforeSignIn(t *testing.T) {
	f := newFixture(t, inspect.Config{Token: "s3cret"})
	about := []string{"memory.db", "hash-v1", "analyzer", "shows episodes up to", "decision"}
	for _, p := range []struct{ method, path string }{{"GET", "/ui/signin"}, {"POST", personURL(haruka) + "/forget"}, {"GET", personURL(haruka) + "/export.jsonl"}} {
		status, body, _ := f.do(t, p.method, p.path, url.Values{}, "Sec-Fetch-Site", "same-origin")
		for _, a := range about {
			if strings.Contains(body, a) {
				t.Errorf("%s %s (%d) shows %q before sign-in", p.method, p.path, status, a)
			}
		}
	}
	if _, body, _ := f.get(t, "/ui/", "Authorization", "Bearer s3cret"); !strings.Contains(body, "memory.db") || !strings.Contains(body, "shows episodes up to") {
		t.Error("signed in, the footer does not say which store")
	}
}

// TestPeopleUnderTheCeiling: nothing above the ceiling shapes the people
// page: a person whose memories are all secret is not listed and has no
// page, and a person's newest time and count are those the ceiling shows.
func TestPeopleUnderTheCeiling(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	if _, err := f.mem.Add(ctx, episode.Episode{User: "sora", UserText: "誰にも言えない秘密がある", ReplyText: "聞くよ",
		OccurredAt: now.Add(-time.Hour), Sensitivity: episode.SensitivitySecret}); err != nil {
		t.Fatal(err)
	}
	_, body, _ := f.get(t, "/ui/")
	if strings.Contains(body, "sora") {
		t.Error("a person whose only memory is secret is listed")
	}
	if status, body, _ := f.get(t, personURL("sora")); status != http.StatusNotFound || strings.Contains(body, "秘密") {
		t.Errorf("their page: %d", status)
	}
	// haruka's newest shown memory is the cat's, 10 days ago: the private
	// (4 days) and secret (5 days) ones are newer.
	cat := now.AddDate(0, 0, -10).Format("2006-01-02 15:04")
	for _, hidden := range []int{4, 5} {
		if at := now.AddDate(0, 0, -hidden).Format("2006-01-02 15:04"); strings.Contains(body, at) {
			t.Errorf("the people page shows the time of a hidden memory (%s)", at)
		}
	}
	row := body[strings.Index(body, personURL(haruka)):]
	row = row[:strings.Index(row, "</tr>")]
	if !strings.Contains(row, cat) || !strings.Contains(row, `class="num">5<`) {
		t.Errorf("haruka's row: %s, want 5 memories, newest %s", row, cat)
	}
	secret := newFixture(t, inspect.Config{MaxSensitivity: episode.SensitivitySecret})
	if _, body, _ := secret.get(t, "/ui/"); !strings.Contains(body, `class="num">7<`) {
		t.Error("at secret, haruka's count is not all 7")
	}
}
