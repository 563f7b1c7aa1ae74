package omoidemcp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/omoide/omoide/omoidemcp"
)

// TestSchemasSayWhatTheProseSays: the arguments' schemas name the values
// the descriptions list (enums), their bounds and formats, so that a client
// validating them refuses what the server would; the handshake says the
// tools never change and gives a version; a read-only server lists no
// write tool.
func TestSchemasSayWhatTheProseSays(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem, "はるか", omoidemcp.Config{AllowForgetPerson: true})
	schemas := map[string]map[string]any{}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var m map[string]any
		json.Unmarshal(b, &m)
		schemas[tool.Name] = m["properties"].(map[string]any)
	}
	prop := func(tool, name string) map[string]any { return schemas[tool][name].(map[string]any) }
	enum := func(p map[string]any) []string {
		var out []string
		for _, v := range p["enum"].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	if got := enum(prop("remember", "kind")); !slices.Equal(got, []string{"episode", "fact", "summary", "loop"}) {
		t.Errorf("remember's kind enum %v", got)
	}
	if got := enum(prop("remember", "sensitivity")); !slices.Equal(got, []string{"normal", "private", "secret"}) {
		t.Errorf("remember's sensitivity enum %v", got)
	}
	if prop("remember", "occurred_at")["format"] != "date-time" || prop("recall", "now")["format"] != "date-time" {
		t.Errorf("the times are not date-time: %v, %v", prop("remember", "occurred_at"), prop("recall", "now"))
	}
	if l := prop("list_memories", "limit"); l["minimum"] != 1.0 || l["maximum"] != float64(omoidemcp.MaxPage) {
		t.Errorf("list_memories' limit bounds %v", l)
	}
	if id := prop("forget_memory", "id"); id["minimum"] != 1.0 {
		t.Errorf("forget_memory's id bounds %v", id)
	}
	if prop("remember", "user_text")["maxLength"] == nil || prop("remember", "id")["maxLength"] == nil {
		t.Errorf("remember's texts and id have no maxLength")
	}
	role := prop("recall", "recent")["items"].(map[string]any)["properties"].(map[string]any)["role"].(map[string]any)
	if got := enum(role); !slices.Equal(got, []string{"user", "assistant"}) {
		t.Errorf("recall's recent role enum %v", got)
	}

	init := cs.InitializeResult()
	if init.Capabilities.Tools == nil || init.Capabilities.Tools.ListChanged || init.Capabilities.Logging != nil {
		t.Errorf("capabilities %+v: want tools without listChanged, no logging", init.Capabilities)
	}
	if init.ServerInfo.Version == "" {
		t.Error("no server version")
	}

	// Errors in the tools' words, not Go's.
	for _, args := range []map[string]any{{"id": "7"}, {"id": 1.5}, {"id": 0}} {
		res := call(t, cs, "forget_memory", args)
		if !res.IsError || strings.Contains(text(res), "Go struct") || strings.Contains(text(res), "reflect") || strings.Contains(text(res), "json:") {
			t.Errorf("forget_memory %v: %v %q", args, res.IsError, text(res))
		}
	}

	ro := connect(t, mem, "はるか", omoidemcp.Config{ReadOnly: true, AllowForgetPerson: true})
	got, err := ro.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range got.Tools {
		names = append(names, tool.Name)
	}
	if want := []string{"list_memories", "recall"}; !slices.Equal(names, want) {
		t.Errorf("a read-only server lists %v, want %v", names, want)
	}
}
