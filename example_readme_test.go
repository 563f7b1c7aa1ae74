package omoide_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
)

// Example_readme is the README's Go example, whole: TestReadmeMirrorsExample
// holds the README to it, so the README's code compiles and runs.
func Example_readme() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "omoide-readme")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// --- README begins
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		log.Fatal(err)
	}
	// Hash embedder, cjk analyzer (Japanese by kagome, Chinese and Korean by bigrams), default preset. Location is the people's time zone: the day
	// that "昨日" names and the evidence dates (a Request's Location overrides it for one person).
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(dir, "memory.db"), Location: tokyo})
	if err != nil {
		log.Fatal(err)
	}
	defer mem.Close()

	// After each exchange:
	_, err = mem.Add(ctx, episode.Episode{
		User: "haruka", UserText: "昨日駅前のラーメン屋に行ったよ", ReplyText: "いいね！何を食べたの？",
		OccurredAt: time.Now(),
	})
	if err != nil {
		log.Fatal(err)
	}

	// Before each reply: the section to put in the prompt ("" when nothing is worth injecting).
	section, res, err := mem.Evidence(ctx, retriever.Request{
		User:   "haruka",
		Text:   "この前のラーメン屋、また行きたいな",
		Recent: []retriever.Message{{Role: "assistant", Content: "おかえり！今日はどうだった？"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.Hits), strings.Contains(section, "ラーメン屋"))

	// When a person asks to be forgotten: every episode and their name, erased.
	if _, err := mem.Forget(ctx, "haruka"); err != nil {
		log.Fatal(err)
	}
	// --- README ends
	// Output: 1 true
}

// TestReadmeMirrorsExample: the README's Go block is Example_readme's body
// between its markers, line for line (indentation aside).
func TestReadmeMirrorsExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	block := between(string(readme), "```go\n", "```")
	body := between(string(src), "// --- README begins\n", "\t// --- README ends")
	norm := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	got, want := norm(block), norm(body)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("README.md's Go block differs from Example_readme (copy the example's body between its markers):\n%s", strings.Join(want, "\n"))
	}
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}
