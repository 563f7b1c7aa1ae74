package cli

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/omoide/omoide/embed"
)

// parseEmbedderFlags registers the embedder flags, with -batch and
// -dimensions, and parses args.
func parseEmbedderFlags(t *testing.T, args ...string) *EmbedderFlags {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var e EmbedderFlags
	e.Register(fs)
	e.RegisterRequest(fs)
	if err := Parse(fs, args); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return &e
}

// clearEmbedderEnv keeps the environment of the machine out of the tests.
func clearEmbedderEnv(t *testing.T) {
	for _, k := range []string{EnvEmbedder, EnvEndpoint, EnvModel, EnvDim} {
		t.Setenv(k, "")
	}
}

func TestEmbedderFlagsValidate(t *testing.T) {
	clearEmbedderEnv(t)
	for _, tc := range []struct {
		args []string
		want string // "" = valid
	}{
		{nil, ""},
		{[]string{"-dim", "512"}, ""},
		{[]string{"-embedder", "openai", "-model", "m", "-dim", "8", "-endpoint", "http://localhost:1/v1", "-batch", "4", "-dimensions"}, ""},
		{[]string{"-dim", "-1"}, "-dim -1: must be positive"},
		{[]string{"-embedder", "bert"}, `-embedder "bert": want hash, openai or static`},
		{[]string{"-embedder", "static", "-model", "dir", "-dim", "32"}, ""},
		{[]string{"-embedder", "static"}, "-embedder static needs -model, the model's folder"},
		{[]string{"-embedder", "static", "-model", "dir", "-endpoint", "http://x/v1"}, "-endpoint is for -embedder openai, not static"},
		{[]string{"-model", "m"}, "-model is not for -embedder hash"},
		{[]string{"-endpoint", "http://x/v1"}, "-endpoint is not for -embedder hash"},
		{[]string{"-batch", "4"}, "-batch is not for -embedder hash"},
		{[]string{"-dimensions"}, "-dimensions is not for -embedder hash"},
		{[]string{"-embedder", "openai", "-dim", "8"}, "-embedder openai needs -model (or OMOIDE_MODEL)"},
		{[]string{"-embedder", "openai", "-model", "m"}, "-embedder openai needs -dim"},
		{[]string{"-embedder", "openai", "-model", "m", "-dim", "8", "-key-env", ""}, "-key-env is empty"},
		{[]string{"-embedder", "openai", "-model", "m", "-dim", "8", "-batch", "-1"}, "-batch -1: must not be negative"},
	} {
		err := parseEmbedderFlags(t, tc.args...).Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.want != "" && (!errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}

// TestEmbedderFlagsOwnBatch checks that without RegisterRequest a -batch of
// the command's own (omoide ingest's) is no openai option.
func TestEmbedderFlagsOwnBatch(t *testing.T) {
	clearEmbedderEnv(t)
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	var e EmbedderFlags
	e.Register(fs)
	fs.Int("batch", 100, "episodes per batch")
	if err := Parse(fs, []string{"-batch", "10"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Validate(); err != nil {
		t.Errorf("hash with the command's own -batch: %v", err)
	}
}

func TestEmbedderFlagsEnvironment(t *testing.T) {
	clearEmbedderEnv(t)
	t.Setenv(EnvEmbedder, "openai")
	t.Setenv(EnvEndpoint, "http://localhost:11434/v1")
	t.Setenv(EnvModel, "nomic-embed-text")
	t.Setenv(EnvDim, "768")
	e := parseEmbedderFlags(t)
	if err := e.Validate(); err != nil {
		t.Fatal(err)
	}
	got, err := e.Embedder()
	if err != nil {
		t.Fatal(err)
	}
	if want := (embed.Identity{Name: "openai:nomic-embed-text", Dim: 768}); got.Identity() != want {
		t.Errorf("identity %v, want %v", got.Identity(), want)
	}
	// The flags override the environment; hash ignores the openai
	// variables, which are not flags given on the command line.
	e = parseEmbedderFlags(t, "-embedder", "hash", "-dim", "512")
	if err := e.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, err := e.Embedder(); err != nil || got.Identity() != (embed.Identity{Name: "hash-v1+w", Dim: 512}) {
		t.Errorf("hash -dim 512: %v, %v", got, err)
	}

	t.Setenv(EnvDim, "many")
	if err := parseEmbedderFlags(t).Validate(); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), `OMOIDE_DIM="many"`) {
		t.Errorf("a bad OMOIDE_DIM: %v", err)
	}
	if err := parseEmbedderFlags(t, "-dim", "256").Validate(); err != nil {
		t.Errorf("-dim overrides a bad OMOIDE_DIM: %v", err)
	}
}
