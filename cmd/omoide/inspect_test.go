package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/demo"
	"github.com/omoide/omoide/episode"
)

// startInspector runs run (inspect or serve) with args until the test ends
// and returns its base URL.
func startInspector(t *testing.T, run func(ctx context.Context, args []string, stdout, stderr io.Writer, hooks serveHooks) error, args []string, stdout io.Writer) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc, done := make(chan net.Addr, 1), make(chan error, 1)
	var logs syncBuffer
	go func() { done <- run(ctx, args, stdout, &logs, serveHooks{ready: func(a net.Addr) { addrc <- a }}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stopped: %v", err)
		}
	})
	select {
	case a := <-addrc:
		return "http://" + a.String()
	case err := <-done:
		done <- err
		t.Fatalf("returned before listening: %v\n%s", err, logs.String())
	case <-time.After(time.Minute):
		t.Fatal("did not start listening")
	}
	return ""
}

// inspectDB makes a store of one memory of はるか and returns its path and
// the memory's id.
func inspectDB(t *testing.T) (string, int64) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "memory.db")
	mem, err := omoide.Open(context.Background(), omoide.Config{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := mem.Add(context.Background(), episode.Episode{User: "はるか", UserText: "駅前のラーメン屋で味噌ラーメン", ReplyText: "いいね", OccurredAt: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	return db, ids[0]
}

// fetch sends a request as a same-origin browser would, following no
// redirect, and returns the status, the Location and the body.
func fetch(t *testing.T, method, url string, header ...string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(b)
}

// TestInspectCommand: omoide inspect serves the inspector alone on
// loopback, read-only unless -write, and prints where.
func TestInspectCommand(t *testing.T) {
	clearEnv(t)
	db, id := inspectDB(t)
	del := "/ui/people/%E3%81%AF%E3%82%8B%E3%81%8B/episodes/" + strconv.FormatInt(id, 10) + "/delete"
	var out syncBuffer
	base := startInspector(t, inspectStore, []string{"-db", db, "-addr", "127.0.0.1:0"}, &out)
	if !strings.Contains(out.String(), base+"/ui/") || !strings.Contains(out.String(), "read-only") {
		t.Errorf("printed %q, want the URL %s/ui/ and read-only", out.String(), base)
	}
	if status, loc, _ := fetch(t, "GET", base+"/"); status != http.StatusSeeOther || loc != "/ui/" {
		t.Errorf("GET /: %d → %q", status, loc)
	}
	if status, _, body := fetch(t, "GET", base+"/ui/"); status != 200 || !strings.Contains(body, "はるか") {
		t.Errorf("GET /ui/: %d", status)
	}
	if status, _, body := fetch(t, "POST", base+del); status != http.StatusForbidden || !strings.Contains(body, "read-only") {
		t.Errorf("a delete on a read-only inspector: %d", status)
	}
	if status, _, _ := fetch(t, "GET", base+"/v1/users"); status != http.StatusNotFound {
		t.Errorf("the inspector serves the API too: %d", status)
	}

	writable := startInspector(t, inspectStore, []string{"-db", db, "-addr", "127.0.0.1:0", "-write", "-token", "tok"}, io.Discard)
	if status, loc, _ := fetch(t, "GET", writable+"/ui/"); status != http.StatusSeeOther || !strings.HasPrefix(loc, "/ui/signin") {
		t.Errorf("with a token, GET /ui/: %d → %q", status, loc)
	}
	if status, _, _ := fetch(t, "POST", writable+del, "Authorization", "Bearer tok"); status != http.StatusSeeOther {
		t.Errorf("a delete with -write: %d", status)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-db", db, "-addr", "0.0.0.0:0"}, "loopback only"},
		{[]string{"-db", filepath.Join(t.TempDir(), "none.db"), "-addr", "127.0.0.1:0"}, "none.db"},
		{[]string{"-db", db, "-max-request-sensitivity", "top"}, "-max-request-sensitivity"},
	} {
		err := inspectStore(context.Background(), c.args, io.Discard, io.Discard, serveHooks{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("inspect %q: %v, want an error naming %q", c.args, err, c.want)
		}
	}
	if err := inspectStore(context.Background(), []string{"-db", db, "-addr", "0.0.0.0:0"}, io.Discard, io.Discard, serveHooks{}); !errors.Is(err, errUsage) {
		t.Errorf("a non-loopback address is no usage error: %v", err)
	}
}

// TestServeMountsInspector: serve mounts the inspector at /ui/ behind its
// token, and -ui=false leaves it out.
func TestServeMountsInspector(t *testing.T) {
	clearEnv(t)
	db, _ := inspectDB(t)
	base := startInspector(t, serve, []string{"-db", db, "-addr", "127.0.0.1:0", "-token", "tok"}, io.Discard)
	if status, loc, _ := fetch(t, "GET", base+"/ui/"); status != http.StatusSeeOther || !strings.HasPrefix(loc, "/ui/signin") {
		t.Errorf("GET /ui/ without the token: %d → %q", status, loc)
	}
	if status, _, body := fetch(t, "GET", base+"/ui/", "Authorization", "Bearer tok"); status != 200 || !strings.Contains(body, "はるか") {
		t.Errorf("GET /ui/ with the token: %d", status)
	}
	if status, _, _ := fetch(t, "GET", base+"/v1/users", "Authorization", "Bearer tok"); status != 200 {
		t.Errorf("the API beside the inspector: %d", status)
	}
	off := startInspector(t, serve, []string{"-db", db, "-addr", "127.0.0.1:0", "-ui=false", "-readonly"}, io.Discard)
	if status, _, body := fetch(t, "GET", off+"/ui/people"); status != http.StatusNotFound || !strings.Contains(body, `"error":"no endpoint /ui/people"`) {
		t.Errorf("-ui=false: GET /ui/ %d %s", status, body)
	}
}

// TestDemoKeepsStore: demo -db keeps its store for the inspector, runs
// again on it, and refuses a store holding someone else.
func TestDemoKeepsStore(t *testing.T) {
	clearEnv(t)
	db := filepath.Join(t.TempDir(), "memory.db")
	for range 2 {
		var out strings.Builder
		if err := runDemo(context.Background(), []string{"-db", db, "-queries", "haruka:q01"}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "omoide inspect -db "+db) {
			t.Errorf("the demo does not say how to inspect its store:\n%s", out.String())
		}
	}
	mem, err := omoide.Open(context.Background(), omoide.Config{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	n, err := mem.Store.Count(context.Background(), "")
	if err == nil {
		_, err = mem.Add(context.Background(), episode.Episode{User: "someone-else", UserText: "x", OccurredAt: time.Now()})
	}
	mem.Close()
	eps, derr := demo.Episodes()
	if err != nil || derr != nil || n != len(eps) {
		t.Fatalf("%d episodes kept after two runs, want the demo's %d once (%v, %v)", n, len(eps), err, derr)
	}
	err = runDemo(context.Background(), []string{"-db", db}, io.Discard, io.Discard)
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "someone-else") {
		t.Errorf("a store holding someone else: %v", err)
	}
}

// TestInspectLoopbackOnly: omoide inspect listens on loopback addresses
// only, refusing every other before it listens (a usage error naming the
// rule), and never serves one: were the rule gone, the run would be told it
// listens and stop at once instead of serving until killed.
func TestInspectLoopbackOnly(t *testing.T) {
	clearEnv(t)
	db, _ := inspectDB(t)
	run := func(addr string) (served bool, err error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = inspectStore(ctx, []string{"-db", db, "-addr", addr}, io.Discard, io.Discard,
			serveHooks{ready: func(net.Addr) { served = true; cancel() }})
		return served, err
	}
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0", "10.1.2.3:0", "192.168.0.10:0", "127.0.0.1.nip.io:0", "localhost.evil.example:0",
		"[fe80::1]:0", "[::ffff:10.0.0.1]:0", "example.com:0", "127.0.0.1"} {
		served, err := run(addr)
		if served || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "loopback only") {
			t.Errorf("-addr %s: served %v, %v; want a usage error naming the loopback rule", addr, served, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.2:0", "localhost:0", "[::1]:0"} {
		served, err := run(addr)
		if !served && !strings.Contains(fmt.Sprint(err), "cannot assign") && !strings.Contains(fmt.Sprint(err), "address not available") {
			t.Errorf("-addr %s: not served: %v", addr, err)
		}
	}
}
