package genclient

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGenerated: genclient.gen.go is what oapi-codegen (go.mod's tool, at
// its pinned version) makes now from docs/openapi.json with config.yaml, so
// that the client the tests drive the server with is the description's
// (after a change of it: go generate ./omoidehttp/internal/genclient).
func TestGenerated(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to run oapi-codegen with: %v", err)
	}
	spec, err := filepath.Abs(filepath.Join("..", "..", "..", "docs", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile("config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The same configuration, writing elsewhere; go tool runs here, in the
	// module that pins the tool.
	out := filepath.Join(t.TempDir(), "genclient.gen.go")
	conf = bytes.Replace(conf, []byte("output: genclient.gen.go"), []byte("output: "+out), 1)
	if !bytes.Contains(conf, []byte(out)) {
		t.Fatal("config.yaml has no \"output: genclient.gen.go\" line to redirect")
	}
	tmpConf := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(tmpConf, conf, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, "tool", "oapi-codegen", "-config", tmpConf, spec)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go tool oapi-codegen: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("oapi-codegen wrote no code: %v", err)
	}
	got, err := os.ReadFile("genclient.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("genclient.gen.go is not what oapi-codegen makes from docs/openapi.json now: go generate ./omoidehttp/internal/genclient")
	}
}
