package cli

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
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
		{[]string{"-embedder", "bert"}, `-embedder "bert": want hash, openai, static or terms`},
		{[]string{"-embedder", "terms", "-model", "vectors.bin"}, ""},
		{[]string{"-embedder", "terms"}, "-embedder terms needs -model, the word vectors file"},
		{[]string{"-embedder", "terms", "-model", "v.bin", "-dim", "64"}, "-dim is not for -embedder terms"},
		{[]string{"-embedder", "terms", "-model", "v.bin", "-endpoint", "http://x/v1"}, "-endpoint is for -embedder openai, not terms"},
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

// TestStaticEmbedderErrors: a static model that is not there or is corrupt
// is a failure named by the system's words or the file at fault, not a
// usage error; a -dim the model cannot give is one.
func TestStaticEmbedderErrors(t *testing.T) {
	clearEmbedderEnv(t)
	models := filepath.Join("..", "..", "..", "embed", "testdata", "static")
	truncated := t.TempDir()
	for _, name := range []string{"config.json", "model.safetensors", "tokenizer.json"} {
		b, err := os.ReadFile(filepath.Join(models, "m2v-en", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "model.safetensors" {
			b = b[:1000]
		}
		if err := os.WriteFile(filepath.Join(truncated, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args  []string
		want  []string
		usage bool
	}{
		{[]string{"-model", filepath.Join(t.TempDir(), "nope")}, []string{"-model: ", "nope: no such file or directory"}, false},
		{[]string{"-model", truncated}, []string{"-model: ", filepath.Join(truncated, "model.safetensors"), "run past the end"}, false},
		{[]string{"-model", filepath.Join(models, "st-ja"), "-dim", "65"}, []string{"-dim: ", "dimension 65: the model has 64"}, true},
	} {
		e := parseEmbedderFlags(t, append([]string{"-embedder", "static"}, tc.args...)...)
		if err := e.Validate(); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		_, err := e.Embedder()
		if err == nil {
			t.Errorf("%q: no error", tc.args)
			continue
		}
		if got := errors.Is(err, ErrUsage); got != tc.usage {
			t.Errorf("%q: %v: a usage error %v, want %v", tc.args, err, got, tc.usage)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %v: want %q in it", tc.args, err, w)
			}
		}
	}
}
