package wordvec

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFile(t *testing.T) {
	v := learn(t, topicCorpus(3, 100, 6), Options{Dim: 8})
	var want bytes.Buffer
	if err := v.Write(&want); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// setup prepares dir and returns the path to write.
		setup func(t *testing.T, dir string) string
		ok    bool
		// kept is what path holds after a failed write ("": nothing).
		kept string
	}{
		{"new file", func(t *testing.T, dir string) string { return filepath.Join(dir, "v.bin") }, true, ""},
		{"replaces a file", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "v.bin")
			if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, true, ""},
		{"no directory", func(t *testing.T, dir string) string { return filepath.Join(dir, "none", "v.bin") }, false, ""},
		{"a directory in the way", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "v.bin")
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, false, "dir"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			n, err := WriteFile(path, v)
			if (err == nil) != tc.ok {
				t.Fatalf("WriteFile: %v, want ok %v", err, tc.ok)
			}
			if entries, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(entries) > 0 {
				t.Errorf("temporary files left: %q", entries)
			}
			if !tc.ok {
				if n != 0 {
					t.Errorf("failed write says %d bytes", n)
				}
				st, serr := os.Stat(path)
				switch {
				case tc.kept == "" && serr == nil:
					t.Errorf("a failed write left %s", path)
				case tc.kept == "dir" && (serr != nil || !st.IsDir()):
					t.Errorf("a failed write replaced the directory at %s", path)
				}
				return
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) || n != int64(len(got)) {
				t.Fatalf("wrote %d bytes (said %d), want Write's %d", len(got), n, want.Len())
			}
			r, err := ReadFile(path)
			if err != nil || r.Fingerprint() != v.Fingerprint() {
				t.Fatalf("read back: %v, fingerprint %v", err, r)
			}
		})
	}
}
