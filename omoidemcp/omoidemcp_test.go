package omoidemcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/omoidemcp"
)

var (
	ctx = context.Background()
	now = time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
)

func openMemory(t testing.TB) *omoide.Memory {
	t.Helper()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "memory.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	return mem
}

// connect returns a client session of user's tools over mem, through the
// SDK's in-memory transports.
func connect(t testing.TB, mem *omoide.Memory, user string, cfg omoidemcp.Config) *mcp.ClientSession {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return now }
	}
	srv, err := omoidemcp.NewServer(mem, user, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its result; a protocol error fails the test.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured result.
func ok[T any](t testing.TB, cs *mcp.ClientSession, tool string, args any) (T, *mcp.CallToolResult) {
	t.Helper()
	res := call(t, cs, tool, args)
	var out T
	if res.IsError {
		t.Fatalf("%s: tool error %s", tool, text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		t.Fatalf("%s: structured content %s: %v", tool, b, err)
	}
	return out, res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestTools: the four tools, named as configurations expect, annotated
// truthfully, none with an argument that names a person; remember, recall
// it, list it, forget it.
func TestTools(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem, "はるか", omoidemcp.Config{})
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		for _, p := range []string{`"user"`, `"user_id"`, `"person"`, `"name"`, `"group_id"`} {
			if strings.Contains(string(schema), p+":") {
				t.Errorf("%s has an argument %s: %s", tool.Name, p, schema)
			}
		}
		a := tool.Annotations
		switch tool.Name {
		case "recall", "list_memories":
			if !a.ReadOnlyHint {
				t.Errorf("%s is not marked read-only", tool.Name)
			}
		case "forget_memory":
			if a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || !a.IdempotentHint {
				t.Errorf("forget_memory's annotations: %+v", a)
			}
		case "remember":
			if a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || a.IdempotentHint {
				t.Errorf("remember's annotations: %+v", a)
			}
		}
	}
	slices.Sort(names)
	if want := []string{"forget_memory", "list_memories", "recall", "remember"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v (forget_person only when allowed)", names, want)
	}

	r, _ := ok[omoidemcp.RememberOutput](t, cs, "remember", map[string]any{"user_text": "駅前の新しいラーメン屋で味噌ラーメンを食べたよ",
		"reply_text": "いいね！濃厚だった？", "occurred_at": "2026-04-01T12:00:00Z", "id": "chat-1"})
	if r.ID == 0 || r.Stored != "added" {
		t.Fatalf("remember: %+v", r)
	}
	again, _ := ok[omoidemcp.RememberOutput](t, cs, "remember", map[string]any{"user_text": "駅前の新しいラーメン屋で味噌ラーメンを食べたよ",
		"reply_text": "いいね！濃厚だった？", "occurred_at": "2026-04-01T12:00:00Z", "id": "chat-1"})
	if again.ID != r.ID || again.Stored != "present" {
		t.Errorf("a retry of remember: %+v, want %d present", again, r.ID)
	}
	for _, u := range []string{"膝が痛くて今日のジョギングは休んだ", "姉と週末に買い物に行く予定", "猫のこむぎが熱を出した"} {
		ok[omoidemcp.RememberOutput](t, cs, "remember", map[string]any{"user_text": u, "reply_text": "そうなんだ", "occurred_at": "2026-04-20T12:00:00Z"})
	}
	rc, res := ok[omoidemcp.RecallOutput](t, cs, "recall", map[string]any{"message": "この前のラーメン屋、また行きたいな", "recent": []any{}})
	if len(rc.Memories) == 0 || rc.Memories[0].ID != r.ID || rc.Memories[0].Probability <= 0 || rc.Memories[0].Why == "" {
		t.Fatalf("recall: %+v", rc)
	}
	// The content is the evidence, then each memory's id and date, for the
	// model to act on (forget_memory).
	if !strings.HasPrefix(text(res), strings.TrimRight(rc.Evidence, "\n")) || !strings.HasPrefix(text(res), "[EPISODE_EVIDENCE]") || !strings.Contains(text(res), "味噌ラーメン") ||
		!strings.Contains(text(res), fmt.Sprintf("#%d (%s)", r.ID, rc.Memories[0].OccurredAt.Format(time.DateOnly))) {
		t.Errorf("recall's content is not the evidence and the memories' ids: %q", text(res))
	}
	if nothing, res := ok[omoidemcp.RecallOutput](t, cs, "recall", map[string]any{"message": "量子コンピュータの仕組みを教えて", "recent": []any{}}); len(nothing.Memories) != 0 || nothing.Declined == "" || !strings.HasPrefix(text(res), "Nothing recalled: ") {
		t.Errorf("recall of nothing: %+v %q", nothing, text(res))
	}

	// Paged newest first by an opaque cursor.
	var seen []int64
	cursor := ""
	for page := 0; page < 5; page++ {
		args := map[string]any{"limit": 3}
		if cursor != "" {
			args["cursor"] = cursor
		}
		l, _ := ok[omoidemcp.ListOutput](t, cs, "list_memories", args)
		for _, m := range l.Memories {
			seen = append(seen, m.ID)
		}
		if cursor = l.NextCursor; cursor == "" {
			break
		}
	}
	if len(seen) != 4 || seen[3] != r.ID {
		t.Errorf("list_memories gave %v, want 4 newest first ending with %d", seen, r.ID)
	}

	f, _ := ok[omoidemcp.ForgetMemoryOutput](t, cs, "forget_memory", map[string]any{"id": r.ID})
	if f.Deleted != r.ID {
		t.Errorf("forget_memory: %+v", f)
	}
	if rc, _ := ok[omoidemcp.RecallOutput](t, cs, "recall", map[string]any{"message": "この前のラーメン屋、また行きたいな", "recent": []any{}}); slices.ContainsFunc(rc.Memories, func(m omoidemcp.Memory) bool { return m.ID == r.ID }) {
		t.Error("recall returns a forgotten memory")
	}
}

// TestOnePersonEach: a server made for one person never reads, lists or
// forgets another's memory, whatever the model asks.
func TestOnePersonEach(t *testing.T) {
	mem := openMemory(t)
	haruka, kenta := connect(t, mem, "はるか", omoidemcp.Config{}), connect(t, mem, "kenta", omoidemcp.Config{})
	r, _ := ok[omoidemcp.RememberOutput](t, haruka, "remember", map[string]any{"user_text": "合言葉はあおぞらペンギン", "reply_text": "覚えたよ"})
	if rc, _ := ok[omoidemcp.RecallOutput](t, kenta, "recall", map[string]any{"message": "合言葉はなんだっけ、あおぞらペンギン？", "recent": []any{}}); len(rc.Memories) != 0 {
		t.Errorf("kenta recalls %+v", rc.Memories)
	}
	if l, _ := ok[omoidemcp.ListOutput](t, kenta, "list_memories", map[string]any{}); len(l.Memories) != 0 {
		t.Errorf("kenta lists %+v", l.Memories)
	}
	if res := call(t, kenta, "forget_memory", map[string]any{"id": r.ID}); !res.IsError || !strings.Contains(text(res), "no such memory") {
		t.Errorf("kenta forgets haruka's memory: %s", text(res))
	}
	// A person named in the arguments is refused, not obeyed.
	if res := call(t, kenta, "recall", map[string]any{"message": "合言葉は？", "user": "はるか"}); !res.IsError || !strings.Contains(text(res), "user") {
		t.Errorf("recall with a user argument: %s", text(res))
	}
	if n, _ := mem.Store.Count(ctx, "はるか"); n != 1 {
		t.Errorf("haruka has %d memories, want 1", n)
	}
	if _, err := omoidemcp.NewServer(mem, " kenta", omoidemcp.Config{}); err == nil || !strings.Contains(err.Error(), "white space") {
		t.Errorf("a server for no person's name: %v", err)
	}
}

// TestHostileArguments: each bad call is a tool error that names what was
// wrong, and nothing is stored.
func TestHostileArguments(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem, "はるか", omoidemcp.Config{})
	long := strings.Repeat("あ", episode.MaxTextBytes/3+1)
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"remember", json.RawMessage("{\"user_text\": \"caf\xe9\"}"), "UTF-8"},
		{"remember", json.RawMessage(`{"user_text": "a\udc00b"}`), "surrogate"},
		{"remember", map[string]any{"user_text": long}, "16384"},
		{"remember", map[string]any{"user_text": "x", "user": "kenta"}, "user"},
		{"remember", map[string]any{"user_text": 5}, "user_text"},
		{"remember", map[string]any{"user_text": "x", "kind": "diary"}, "kind"},
		{"remember", map[string]any{"user_text": "x", "sensitivity": "top"}, "sensitivity"},
		{"remember", map[string]any{"user_text": "x", "occurred_at": "yesterday"}, "occurred_at"},
		{"remember", map[string]any{"user_text": "x", "id": "a\x01b"}, "control"},
		{"remember", map[string]any{"reply_text": "only a reply"}, "user_text"},
		{"recall", map[string]any{"message": ""}, "message"},
		{"recall", map[string]any{"message": "x", "now": "tomorrow"}, "now"},
		{"recall", map[string]any{"message": "x", "recent": []any{map[string]any{"role": "bot", "content": "hi"}}}, "role"},
		{"list_memories", map[string]any{"limit": 1000}, "limit"},
		{"list_memories", map[string]any{"cursor": "bogus"}, "cursor"},
		{"forget_memory", map[string]any{"id": 424242}, "424242"},
		{"forget_memory", map[string]any{"id": "7"}, "id"},
		{"forget_memory", map[string]any{}, "id"},
	} {
		res := call(t, cs, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %v: error %v %q, want a tool error naming %q", c.tool, c.args, res.IsError, text(res), c.want)
		}
	}
	if n, _ := mem.Store.Count(ctx, ""); n != 0 {
		t.Errorf("%d memories stored by bad calls", n)
	}
}

// TestCeilingAndForgetPerson: a memory above the ceiling is neither
// recalled nor listed, and a remember above it is refused with the flag that
// admits it, nothing stored; the person's own memory is forgotten at any
// level; forget_person exists only when allowed and needs the name.
func TestCeilingAndForgetPerson(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem, "はるか", omoidemcp.Config{AllowForgetPerson: true})
	if res := call(t, cs, "remember", map[string]any{"user_text": "合言葉はあおぞらペンギン", "sensitivity": "private"}); !res.IsError ||
		!strings.Contains(text(res), "private") || !strings.Contains(text(res), "-max-request-sensitivity") {
		t.Errorf("remember above the ceiling: error %v %q, want one naming the level and the flag", res.IsError, text(res))
	}
	if n, _ := mem.Store.Count(ctx, "はるか"); n != 0 {
		t.Fatalf("a refused remember stored %d memories", n)
	}
	private := connect(t, mem, "はるか", omoidemcp.Config{MaxSensitivity: episode.SensitivitySecret})
	s, _ := ok[omoidemcp.RememberOutput](t, private, "remember", map[string]any{"user_text": "合言葉はあおぞらペンギン", "sensitivity": "secret"})
	if l, _ := ok[omoidemcp.ListOutput](t, cs, "list_memories", map[string]any{}); len(l.Memories) != 0 {
		t.Errorf("a secret memory is listed at the normal ceiling")
	}
	if l, _ := ok[omoidemcp.ListOutput](t, private, "list_memories", map[string]any{}); len(l.Memories) != 1 || l.Memories[0].Sensitivity != "secret" {
		t.Errorf("at the secret ceiling: %+v", l.Memories)
	}
	// The person's own memory goes at any level: the ceiling bounds what is
	// shown, not what the person may have forgotten.
	if f, _ := ok[omoidemcp.ForgetMemoryOutput](t, cs, "forget_memory", map[string]any{"id": s.ID}); f.Deleted != s.ID {
		t.Errorf("forget_memory of the person's secret memory at the normal ceiling: %+v", f)
	}
	if _, err := mem.Store.Get(ctx, s.ID); !errors.Is(err, episode.ErrNotFound) {
		t.Errorf("the secret memory is still stored: %v", err)
	}
	if res := call(t, cs, "forget_memory", map[string]any{"id": s.ID}); !res.IsError || !strings.Contains(text(res), strconv.FormatInt(s.ID, 10)) {
		t.Errorf("forget_memory twice: %v %q", res.IsError, text(res))
	}
	ok[omoidemcp.RememberOutput](t, cs, "remember", map[string]any{"user_text": "合言葉はあおぞらペンギン"})
	if res := call(t, cs, "forget_person", map[string]any{"confirm": "haruka"}); !res.IsError || !strings.Contains(text(res), "nothing was forgotten") {
		t.Errorf("forget_person with another name: %s", text(res))
	}
	if f, _ := ok[omoidemcp.ForgetPersonOutput](t, cs, "forget_person", map[string]any{"confirm": "はるか"}); f.Erased != 1 {
		t.Errorf("forget_person: %+v", f)
	}
}

// TestRememberRetry: a remember by id whose time was left to now is safe to
// retry later with the same arguments (present, not a conflict); other
// content under that id is refused in words of the tools, not of Go.
func TestRememberRetry(t *testing.T) {
	mem := openMemory(t)
	clock := now
	cs := connect(t, mem, "はるか", omoidemcp.Config{Now: func() time.Time { return clock }})
	args := map[string]any{"id": "move-2026-12", "user_text": "来月、福岡に引っ越す", "reply_text": "新生活楽しみだね"}
	first, _ := ok[omoidemcp.RememberOutput](t, cs, "remember", args)
	clock = clock.Add(1500 * time.Millisecond) // the client timed out and retries
	again, _ := ok[omoidemcp.RememberOutput](t, cs, "remember", args)
	if first.Stored != "added" || again.Stored != "present" || again.ID != first.ID {
		t.Errorf("remember then its retry: %+v, %+v; want added then present, one id", first, again)
	}
	res := call(t, cs, "remember", map[string]any{"id": "move-2026-12", "user_text": "来月、大阪に引っ越す"})
	if !res.IsError || !strings.Contains(text(res), "move-2026-12") || strings.Contains(text(res), "Update") {
		t.Errorf("other content under the id: error %v %q, want one naming the id and no Go API", res.IsError, text(res))
	}
	if n, _ := mem.Store.Count(ctx, "はるか"); n != 1 {
		t.Errorf("%d memories, want 1", n)
	}
}

// TestRecallRightAfterRemember: a recall without recent turns takes nothing
// of the store for the conversation, so what was just remembered is
// recalled; a memory the recent turns repeat is left out, and the answer
// says so.
func TestRecallRightAfterRemember(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem, "はるか", omoidemcp.Config{})
	r, _ := ok[omoidemcp.RememberOutput](t, cs, "remember", map[string]any{"user_text": "明日は歯医者の予約がある", "reply_text": "がんばってね"})
	rc, res := ok[omoidemcp.RecallOutput](t, cs, "recall", map[string]any{"message": "歯医者っていつだっけ"})
	if len(rc.Memories) == 0 || rc.Memories[0].ID != r.ID || rc.LeftOut != 0 {
		t.Fatalf("recall right after remember: %+v (%q)", rc, text(res))
	}
	rc, res = ok[omoidemcp.RecallOutput](t, cs, "recall", map[string]any{"message": "歯医者っていつだっけ",
		"recent": []any{map[string]any{"role": "user", "content": "明日は歯医者の予約がある"}, map[string]any{"role": "assistant", "content": "がんばってね"}}})
	if len(rc.Memories) != 0 || rc.LeftOut != 1 || !strings.Contains(text(res), "1 memory left out") {
		t.Errorf("recall beside recent turns that are the memory: %+v (%q), want it left out and said", rc, text(res))
	}
}
