package omoide_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestModelBuildsWithoutCgo: the packages that only read or rank episodes
// (the episode model, transcript, ingest, retriever) depend on no package
// outside the standard library with cgo, SQLite's driver and sqlite-vec
// among them, so they build, vet and test with CGO_ENABLED=0 (their
// tests that need a store say //go:build cgo); only episode/sqlite holds
// the store.
func TestModelBuildsWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	pkgs := []string{"./episode", "./transcript", "./ingest", "./retriever"}
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}} {{len .CgoFiles}}{{end}}"}, pkgs...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for line := range strings.Lines(string(out)) {
		path, cgo, _ := strings.Cut(strings.TrimSpace(line), " ")
		if path == "" {
			continue // a package of the standard library
		}
		seen++
		if cgo != "0" || strings.Contains(path, "sqlite") {
			t.Errorf("%s (%s cgo files) is a dependency of %s", path, cgo, strings.Join(pkgs, ", "))
		}
	}
	if seen < len(pkgs) {
		t.Fatalf("go list named %d packages:\n%s", seen, out)
	}
	// and they vet, tests included, with cgo off (their tests that need the
	// store say //go:build cgo)
	vet := exec.Command("go", append([]string{"vet"}, pkgs...)...)
	vet.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := vet.CombinedOutput(); err != nil {
		t.Errorf("CGO_ENABLED=0 go vet: %v\n%s", err, out)
	}
}
