package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTokenFile: serve and inspect take the token from -token-file (its
// first line) or OMOIDE_TOKEN, which ps does not show, and say so in their
// help; -token with -token-file, an empty or missing file, are errors.
func TestTokenFile(t *testing.T) {
	clearEnv(t)
	db, _ := inspectDB(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("from-the-file\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := startInspector(t, serve, []string{"-db", db, "-addr", "127.0.0.1:0", "-token-file", file}, io.Discard)
	if status, _, _ := fetch(t, "GET", base+"/v1/users"); status != http.StatusUnauthorized {
		t.Errorf("without the file's token: %d", status)
	}
	if status, _, _ := fetch(t, "GET", base+"/v1/users", "Authorization", "Bearer from-the-file"); status != 200 {
		t.Errorf("with the file's token: %d", status)
	}
	ui := startInspector(t, inspectStore, []string{"-db", db, "-addr", "127.0.0.1:0", "-token-file", file}, io.Discard)
	if status, _, _ := fetch(t, "GET", ui+"/ui/", "Authorization", "Bearer from-the-file"); status != 200 {
		t.Errorf("inspect with the file's token: %d", status)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	for _, run := range []func(context.Context, []string, io.Writer, io.Writer, serveHooks) error{serve, inspectStore} {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"-token", "x", "-token-file", file}, "not both"},
			{[]string{"-token-file", empty}, "first line is empty"},
			{[]string{"-token-file", filepath.Join(dir, "none")}, "no such file"},
		} {
			// Were the flags taken, the run would be told it listens and stop.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			served := false
			err := run(ctx, append([]string{"-db", db, "-addr", "127.0.0.1:0"}, c.args...), io.Discard, io.Discard,
				serveHooks{ready: func(net.Addr) { served = true; cancel() }})
			cancel()
			if served || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: served %v, %v; want an error saying %q", c.args, served, err, c.want)
			}
		}
	}
	for _, cmd := range []string{"serve", "inspect"} {
		_, _, stderr := runCLI(t, cmd, "-help")
		if !strings.Contains(stderr, "OMOIDE_TOKEN") || !strings.Contains(stderr, "-token-file") || !strings.Contains(stderr, "ps") {
			t.Errorf("%s -help does not say to prefer OMOIDE_TOKEN or -token-file to -token:\n%s", cmd, stderr)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := serve(ctx, []string{"-db", db, "-addr", "127.0.0.1:0", "-token", "x", "-token-file", file}, io.Discard, io.Discard,
		serveHooks{ready: func(net.Addr) { cancel() }}); !errors.Is(err, errUsage) {
		t.Errorf("-token with -token-file is no usage error: %v", err)
	}
}
