package inspect_test

import (
	"context"
	"errors"
	"flag"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/omoide/omoide/inspect"
)

var screenshots = flag.String("screenshots", "", "write the browser test's screenshots to this directory (make screenshots: docs/img)")

// browserPath is the Chromium to drive: $OMOIDE_CHROME, else chromium on
// PATH (the Makefile installs Debian's). Without one the browser tests skip,
// and fail under CI=true: CI must run them.
func browserPath(t *testing.T) string {
	if p := os.Getenv("OMOIDE_CHROME"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no browser: install Debian's chromium (make test does, as root) or set OMOIDE_CHROME; under CI=true the browser tests must run")
	}
	t.Skip("no browser (chromium) on PATH: the browser tests skip (make test installs it as root)")
	return ""
}

// browser returns a chromedp context over a headless Chromium.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browserPath(t)), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("lang", "ja-JP"))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	if err := chromedp.Do(bctx); err != nil { // start the browser without a timeout (chromedp.Run)
		t.Fatalf("start %s: %v", browserPath(t), err)
	}
	return bctx
}

// step runs actions with a time limit, failing the test with what was being
// done.
func step(t *testing.T, bctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, bctx context.Context, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// shoot writes a screenshot of the whole page as name.png.
func shoot(t *testing.T, bctx context.Context, name string) {
	t.Helper()
	dir := *screenshots
	if dir == "" {
		dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "inspect-"+name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// labelled fails the test for each control of the page that has no name a
// screen reader could read (a label, aria-label or text) or that Tab skips.
func labelled(t *testing.T, bctx context.Context, page string) {
	t.Helper()
	if bad := eval[[]string](t, bctx, `[...document.querySelectorAll("input:not([type=hidden]), select, textarea, button, a[href], summary")]
		.filter(e => !((e.labels && e.labels.length) || e.getAttribute("aria-label") || e.textContent.trim()) || e.tabIndex < 0)
		.map(e => e.outerHTML.slice(0, 80))`); len(bad) > 0 {
		t.Errorf("%s: controls without a name or out of the Tab order: %q", page, bad)
	}
}

// TestBrowser drives the inspector in a real browser as a person tuning a
// companion would: sign in, the people, a person, a search, a message asked
// (the injected memory and a declined one, each with its reason), a memory
// deleted and retrieval no longer returning it, a person forgotten. A
// hostile episode runs nothing, a secret one appears nowhere, and every
// control has a label and is reached by the keyboard.
func TestBrowser(t *testing.T) {
	f := newFixture(t, inspect.Config{Token: "s3cret"})
	b := browser(t)
	u := func(path string) string { return f.srv.URL + path }

	// Signing in brings the browser back to the page it asked for.
	step(t, b, "sign in",
		chromedp.Navigate(u("/ui/")),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), "s3cret"),
		chromedp.Submit(chromedp.ID("token")),
		chromedp.WaitVisible(chromedp.ID("q")),
	)
	if got := eval[string](t, b, `document.querySelector("h1").textContent`); got != "People" {
		t.Fatalf("after sign-in: %q, want the people", got)
	}
	if eval[bool](t, b, `document.cookie.includes("omoide_inspect")`) {
		t.Error("a script can read the sign-in cookie")
	}
	labelled(t, b, "people")
	shoot(t, b, "people")

	// A person, through the link; the hostile text shows as text.
	step(t, b, "open はるか",
		chromedp.Click(chromedp.CSS(`a[href="/ui/people/%E3%81%AF%E3%82%8B%E3%81%8B"]`)),
		chromedp.WaitVisible(chromedp.CSS(`table.memories`)),
	)
	if got := eval[string](t, b, `document.querySelector("h1").textContent`); got != haruka {
		t.Fatalf("person page: %q", got)
	}
	if eval[bool](t, b, `document.title.includes("pwned") || document.querySelectorAll("main img, main script").length > 0`) {
		t.Fatal("the hostile episode ran or made elements")
	}
	if !eval[bool](t, b, `document.body.innerText.includes("<img src=x onerror=")`) {
		t.Error("the hostile episode's text is not shown as text")
	}
	if eval[bool](t, b, `document.body.innerText.includes("告白")`) {
		t.Error("a secret memory above the ceiling is shown")
	}
	labelled(t, b, "person")
	shoot(t, b, "person")

	// Search.
	step(t, b, "search",
		chromedp.SendKeys(chromedp.ID("q"), "ラーメン屋で"),
		chromedp.Submit(chromedp.ID("q")),
		chromedp.WaitVisible(chromedp.CSS(`a[href="/ui/people/%E3%81%AF%E3%82%8B%E3%81%8B"]`)), // "All memories"
	)
	if rows := eval[int](t, b, `document.querySelectorAll("table.memories tbody tr").length`); rows != 1 ||
		!eval[bool](t, b, `document.querySelector("table.memories").innerText.includes("駅前の新しいラーメン屋")`) {
		t.Errorf("search: %d rows", rows)
	}

	// Ask: the injected memory with its reason, a declined one with its.
	ramen := strconv.FormatInt(f.ids["ramen"], 10)
	askAs := func(text string) {
		step(t, b, "ask "+text,
			chromedp.Navigate(u("/ui/ask?"+url.Values{"user": {haruka}}.Encode())),
			chromedp.WaitVisible(chromedp.ID("text")),
			chromedp.SendKeys(chromedp.ID("text"), text),
			chromedp.SendKeys(chromedp.ID("now"), now.Format(time.RFC3339)),
			chromedp.Click(chromedp.CSS(`form.ask button[type=submit]`)),
			chromedp.WaitVisible(chromedp.ID("verdict-h")),
		)
	}
	askAs("この前のラーメン屋、また行きたいな")
	if got := eval[string](t, b, `document.getElementById("verdict-h").textContent`); !strings.Contains(got, "injected") || strings.HasPrefix(got, "Nothing") {
		t.Fatalf("verdict: %q", got)
	}
	if why := eval[string](t, b, `document.querySelector("#c`+ramen+` .why").textContent`); !strings.Contains(why, "reaches the level") {
		t.Errorf("the injected memory's reason: %q", why)
	}
	if why := eval[string](t, b, `[...document.querySelectorAll("table.cands tbody tr:not(.injected) .why")].map(e => e.textContent).join("|")`); !strings.Contains(why, "below the level") {
		t.Errorf("the declined memories' reasons: %q", why)
	}
	if !eval[bool](t, b, `document.getElementById("evidence").textContent.includes("[EPISODE_EVIDENCE]")`) {
		t.Error("no evidence section")
	}
	shoot(t, b, "ask")

	// At a phone's 390 px the ask page and a person's page scroll only
	// down, and the ask page stays a few screens tall.
	step(t, b, "a phone", chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("verdict-h")))
	if sideways := eval[bool](t, b, `document.documentElement.scrollWidth > document.documentElement.clientWidth + 1`); sideways {
		t.Errorf("the ask page scrolls sideways at 390 px: %d wide", eval[int](t, b, `document.documentElement.scrollWidth`))
	}
	if h := eval[int](t, b, `document.documentElement.scrollHeight`); h > 12000 {
		t.Errorf("the ask page is %d px tall at 390 px", h)
	}
	if w := eval[float64](t, b, `document.querySelector("table.cands tbody td:nth-child(2)").getBoundingClientRect().width`); w < 250 {
		t.Errorf("a candidate's memory is %.0f px wide at 390 px", w)
	}
	shoot(t, b, "ask-390")
	step(t, b, "a phone: the person", chromedp.Navigate(u(personURL(haruka))), chromedp.WaitVisible(chromedp.CSS(`table.memories`)))
	if eval[bool](t, b, `document.documentElement.scrollWidth > document.documentElement.clientWidth + 1`) {
		t.Errorf("a person's page scrolls sideways at 390 px")
	}
	step(t, b, "back to the desktop", chromedp.EmulateViewport(1280, 900), chromedp.NavigateBack(), chromedp.WaitVisible(chromedp.ID("verdict-h")))

	// Why not: follow a declined candidate's link.
	step(t, b, "why not",
		chromedp.Click(chromedp.CSS(`table.cands tbody tr:not(.injected) button.small`)),
		chromedp.WaitVisible(chromedp.ID("why-not-reason")),
	)
	if got := eval[string](t, b, `document.getElementById("why-not-reason").textContent`); got == "" {
		t.Error("why not: no reason")
	}

	// Every control has a name, and Tab reaches each of the form's.
	labelled(t, b, "ask")
	controls := eval[int](t, b, `document.querySelectorAll("main input:not([type=hidden]), main select, main textarea, main button").length`)
	reached := map[string]bool{}
	step(t, b, "focus the page", chromedp.Focus(chromedp.CSS("a.skip")))
	for range 200 {
		step(t, b, "tab", chromedp.KeyEvent("\t"))
		id := eval[string](t, b, `(e => e.closest("main") && e.matches("input, select, textarea, button") ? (e.id || e.name || e.textContent) : "")(document.activeElement)`)
		if id != "" {
			reached[id] = true
		}
	}
	if len(reached) < controls {
		t.Errorf("Tab reached %d of the ask form's %d controls: %v", len(reached), controls, reached)
	}

	// Delete the injected memory from its page; retrieval no longer
	// returns it.
	step(t, b, "delete",
		chromedp.Navigate(u(personURL(haruka)+"/episodes/"+ramen)),
		chromedp.WaitVisible(chromedp.CSS(`dl.fields`)),
	)
	labelled(t, b, "memory")
	shoot(t, b, "memory")
	// The delete asks first: declined, nothing is deleted; accepted, it is.
	var accept atomic.Bool
	asked := make(chan string, 4)
	dialogs := chromedp.Events(b, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			asked <- ev.Message
			chromedp.Call(b, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept.Load()})
		}
	}()
	step(t, b, "delete, declined", chromedp.Click(chromedp.CSS(`form[action$="/delete"] button`)))
	select {
	case msg := <-asked:
		if !strings.Contains(msg, "Delete memory "+ramen) {
			t.Errorf("the delete asks %q", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the delete did not ask")
	}
	step(t, b, "after declining", chromedp.WaitVisible(chromedp.CSS(`dl.fields`)))
	if e, err := f.mem.Store.Get(ctx, f.ids["ramen"]); err != nil || e.UserText == "" {
		t.Fatalf("a declined delete deleted: %v", err)
	}
	accept.Store(true)
	step(t, b, "delete",
		chromedp.Click(chromedp.CSS(`form[action$="/delete"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`p.flash`)),
	)
	if got := eval[string](t, b, `document.querySelector("p.flash").textContent`); !strings.Contains(got, "Deleted memory "+ramen) {
		t.Errorf("after the delete: %q", got)
	}
	askAs("この前のラーメン屋、また行きたいな")
	if eval[bool](t, b, `!!document.getElementById("c`+ramen+`")`) {
		t.Error("retrieval still returns the deleted memory")
	}

	// Replay a bot's request: pasted as JSON, it fills the form and runs.
	step(t, b, "replay",
		chromedp.Navigate(u("/ui/ask?"+url.Values{"user": {haruka}}.Encode())),
		chromedp.WaitVisible(chromedp.ID("request")),
		chromedp.SendKeys(chromedp.ID("request"), `{"text": "膝の調子どう？", "recent": [{"role": "user", "content": "走ってきた"}], "now": "2026-05-10T20:00:00+09:00", "inject_threshold": 0.99}`),
		chromedp.Click(chromedp.CSS(`form.ask button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("verdict-h")),
	)
	if got := eval[string](t, b, `document.getElementById("text").value + "|" + document.getElementById("recent").value + "|" + document.getElementById("threshold").value`); got != "膝の調子どう？|user: 走ってきた|0.99" {
		t.Errorf("the replayed request's fields: %q", got)
	}
	if got := eval[string](t, b, `document.getElementById("verdict-h").textContent`); got != "Nothing injected" {
		t.Errorf("a replay at threshold 0.99: %q", got)
	}

	// Forget a person: the button waits for the name.
	step(t, b, "open "+odd,
		chromedp.Navigate(u(personURL(odd))),
		chromedp.WaitVisible(chromedp.ID("confirm")),
	)
	if !eval[bool](t, b, `document.querySelector(".forget button").disabled`) {
		t.Error("the forget button is enabled before the name is typed (the script did not run)")
	}
	step(t, b, "forget",
		chromedp.SendKeys(chromedp.ID("confirm"), odd),
		chromedp.Click(chromedp.CSS(`.forget button`)),
		chromedp.WaitVisible(chromedp.CSS(`p.flash`)),
	)
	if got := eval[string](t, b, `document.querySelector("p.flash").textContent`); !strings.HasPrefix(got, "Forgot the person: 1 memory and") {
		t.Errorf("after forget: %q", got)
	}
	if n, err := f.mem.Store.Count(ctx, odd); err != nil || n != 0 {
		t.Errorf("%s still has %d memories (%v)", odd, n, err)
	}
	// With a zone (-tz), the dates a page shows are that zone's.
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err == nil {
		f.mem.Pack.Location = tokyo
		step(t, b, "in Tokyo", chromedp.Navigate(u(personURL(haruka))), chromedp.WaitVisible(chromedp.CSS(`table.memories`)))
		knee := now.AddDate(0, 0, -30).In(tokyo).Format("2006-01-02 15:04")
		if !eval[bool](t, b, `document.querySelector("table.memories").innerText.includes("`+knee+`")`) {
			t.Errorf("the person's page does not show %s, Tokyo's time of a memory", knee)
		}
	}
	if errors.Is(context.Cause(b), context.Canceled) {
		t.Error("the browser went away")
	}
}
