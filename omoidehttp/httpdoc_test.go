package omoidehttp

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide"
)

// docBlocks returns the fenced blocks of lang in the Markdown file path.
func docBlocks(t *testing.T, path, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, part := range strings.Split(string(b), "```"+lang+"\n")[1:] {
		end := strings.Index(part, "\n```")
		if end < 0 {
			t.Fatalf("%s: a ```%s block is not closed", path, lang)
		}
		out = append(out, part[:end+1])
	}
	return out
}

// TestHTTPDoc runs docs/http.md's curl and Python examples, as they are,
// against a live server, and checks what they print: the documentation of
// the API is a program that passes. Without curl or python3 on the machine
// that example is skipped and says so.
func TestHTTPDoc(t *testing.T) {
	doc := filepath.Join("..", "docs", "http.md")
	sh, py := docBlocks(t, doc, "sh"), docBlocks(t, doc, "python")
	if len(sh) != 2 || len(py) != 1 {
		t.Fatalf("%s: %d sh and %d python blocks, want 2 and 1 (the serve lines, the curl session, the Python program)", doc, len(sh), len(py))
	}
	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(mem, Config{Token: "doc-token"})
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Wait(); mem.Close() })
	env := append(os.Environ(), "OMOIDE="+srv.URL, "OMOIDE_TOKEN=doc-token")

	t.Run("curl", func(t *testing.T) {
		if _, err := exec.LookPath("curl"); err != nil {
			t.Skip("no curl on this machine")
		}
		// curl sends the token as the doc says to: every request carries it.
		script := "set -e\ncurl() { command curl -H \"Authorization: Bearer $OMOIDE_TOKEN\" \"$@\"; }\n" + sh[1]
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the curl session failed: %v\n%s", err, out)
		}
		for _, want := range []string{`{"ids":[1,2],"unsearched":0}`, `"inject":true`, "駅前に新しいラーメン屋", `"haruka:2"`, `"deleted":2`} {
			if !strings.Contains(string(out), want) {
				t.Errorf("the curl session printed no %s:\n%s", want, out)
			}
		}
	})
	t.Run("python", func(t *testing.T) {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("no python3 on this machine")
		}
		cmd := exec.Command("python3", "-")
		cmd.Stdin = strings.NewReader(py[0])
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the Python program failed: %v\n%s", err, out)
		}
		if got := string(out); got != "True True\n1\n" {
			t.Errorf("the Python program printed %q, want the doc's \"True True\" and \"1\"", got)
		}
	})
}
