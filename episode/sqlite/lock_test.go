package sqlite

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/tokenize"
)

// backedUpStore opens a new store of one episode and backs it up; it
// returns the open store, its path and the backup's.
func backedUpStore(t *testing.T) (s *Store, path, bak string) {
	t.Helper()
	dir := t.TempDir()
	path, bak = filepath.Join(dir, "memory.db"), filepath.Join(dir, "backup.db")
	s = openStore(t, path, Options{})
	if _, err := s.Add(ctx, []episode.Episode{ep("bob", "公園を散歩した", "いいね", day)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Backup(ctx, bak); err != nil {
		t.Fatal(err)
	}
	return s, path, bak
}

// replacer is a work that takes a store's lock exclusive.
type replacer struct {
	name string
	run  func() error
}

// replacers are what takes the store at path exclusive: a restore of bak
// over it, a re-embedding and a re-analysis.
func replacers(t *testing.T, path, bak string) []replacer {
	return []replacer{
		{"restore", func() error { _, err := Restore(ctx, bak, path); return err }},
		{"reembed", func() error { _, err := Reembed(ctx, path, hashEmbedder(t, 32), 0, nil); return err }},
		{"reanalyze", func() error { _, err := Reanalyze(ctx, path, tokenize.CJK(), nil); return err }},
	}
}

// TestLockInProcess: a writable store is held from Open to Close, shared:
// a second writable open of it in the same process works, while a restore
// over it, a re-embedding and a re-analysis are refused with ErrHeld naming
// this process, and change nothing. Closed, the store can be restored;
// while a restore holds it, a writable open is refused (a read-only one
// too: TestLockReadOnly).
func TestLockInProcess(t *testing.T) {
	a, path, bak := backedUpStore(t)
	b := openStore(t, path, Options{}) // shared with a
	if _, err := b.Add(ctx, []episode.Episode{ep("bob", "猫を見た", "かわいい", day)}); err != nil {
		t.Fatal(err)
	}
	refused := replacers(t, path, bak)
	for _, c := range [][]*Store{{a, b}, {b}} {
		for _, r := range refused {
			err := r.run()
			if !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "held by this process") || !strings.Contains(err.Error(), path) {
				t.Errorf("%s with %d stores open: %v, want ErrHeld naming this process and the store", r.name, len(c), err)
			}
		}
		if n, err := b.Count(ctx, ""); err != nil || n != 2 {
			t.Fatalf("after the refusals the open store holds %d episodes, %v; want 2", n, err)
		}
		c[0].Close()
	}
	if r, err := Restore(ctx, bak, path); err != nil || r.Episodes != 1 {
		t.Fatalf("restore of a closed store = %+v, %v", r, err)
	}

	// A restore at work holds the lock exclusive.
	lock, err := lockStore(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, path, Options{Embedder: hashEmbedder(t, 64)}); !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "open "+path) {
		t.Errorf("writable open under an exclusive lock: %v, want ErrHeld naming the store", err)
	}
	lock.Close()
	openStore(t, path, Options{}).Close()
	if _, err := os.Stat(LockPath(path)); err != nil {
		t.Errorf("the lock file: %v", err)
	}
}

// envLockChild makes TestLockChild hold the store at its path: "shared" as
// a server does (Open), "exclusive" as a restore does.
const envLockChild = "OMOIDE_LOCK_CHILD"

// TestLockChild is the other process of TestLockAcrossProcesses: it holds
// the store as asked, says "held", and keeps it until its standard input
// closes or it is killed.
func TestLockChild(t *testing.T) {
	how, path, ok := strings.Cut(os.Getenv(envLockChild), ":")
	if !ok {
		t.Skip("the child of TestLockAcrossProcesses")
	}
	if how == "exclusive" {
		lock, err := lockStore(path, true)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Close()
	} else {
		openStore(t, path, Options{})
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
}

// startHolder starts TestLockChild holding the store at path as how, and
// returns once it holds it.
func startHolder(t *testing.T, how, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockChild$")
	cmd.Env = append(os.Environ(), envLockChild+"="+how+":"+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.StdinPipe(); err != nil { // held open: the child waits on it
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if sc.Text() == "held" {
			return cmd
		}
	}
	t.Fatalf("the holder (%s) exited without holding the store: %v", how, sc.Err())
	return nil
}

// TestLockAcrossProcesses: while another process holds a store (a server:
// a shared lock), a restore and a re-embedding are refused naming that
// process and its command line, and the store is as it was; killed, its
// lock dies with it and the restore goes through. While another process
// restores (an exclusive lock), a writable open is refused naming it.
func TestLockAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	s, path, bak := backedUpStore(t)
	if _, err := s.Add(ctx, []episode.Episode{ep("bob", "猫を見た", "かわいい", day)}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	server := startHolder(t, "shared", path)
	pid := strconv.Itoa(server.Process.Pid)
	_, err := Restore(ctx, bak, path)
	if !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "held by process "+pid+" (") || !strings.Contains(err.Error(), "TestLockChild") {
		t.Fatalf("restore while process %s holds the store: %v, want ErrHeld naming it and its command", pid, err)
	}
	t.Logf("restore refused: %v", err)
	if _, err := Reembed(ctx, path, hashEmbedder(t, 32), 0, nil); !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "process "+pid) {
		t.Fatalf("reembed while process %s holds the store: %v", pid, err)
	}
	s = openStore(t, path, Options{}) // a second writer shares it
	if n, _ := s.Count(ctx, ""); n != 2 {
		t.Fatalf("the refused restore changed the store: %d episodes", n)
	}
	s.Close()
	server.Process.Signal(syscall.SIGKILL)
	server.Wait()
	if r, err := Restore(ctx, bak, path); err != nil || r.Episodes != 1 {
		t.Fatalf("restore once the holder was killed = %+v, %v", r, err)
	}

	restorer := startHolder(t, "exclusive", path)
	_, err = Open(ctx, path, Options{Embedder: hashEmbedder(t, 64)})
	if want := fmt.Sprintf("held by process %d (", restorer.Process.Pid); !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), want) {
		t.Fatalf("open while another process restores: %v, want ErrHeld with %q", err, want)
	}
	t.Logf("open refused: %v", err)
}

// TestLockHolders reads /proc/locks as Linux writes it: the holders of the
// lock file's device and inode, each once, and never a waiter.
func TestLockHolders(t *testing.T) {
	const locks = `1: FLOCK  ADVISORY  READ 1234 fe:00:9978050 0 EOF
1: -> FLOCK  ADVISORY  WRITE 4444 fe:00:9978050 0 EOF
2: FLOCK  ADVISORY  READ 1235 fe:00:9978050 0 EOF
3: FLOCK  ADVISORY  READ 1234 fe:00:9978050 0 EOF
4: FLOCK  ADVISORY  WRITE 2000 fe:01:9978050 0 EOF
5: POSIX  ADVISORY  WRITE 3000 103:02:9978050 0 EOF
6: FLOCK  ADVISORY  WRITE 5000 fe:00:42 0 EOF
garbage
`
	for _, tt := range []struct {
		dev  [2]uint64
		ino  uint64
		want []int
	}{
		{[2]uint64{0xfe, 0}, 9978050, []int{1234, 1235}},
		{[2]uint64{0xfe, 1}, 9978050, []int{2000}},
		{[2]uint64{0x103, 2}, 9978050, []int{3000}},
		{[2]uint64{0xfe, 0}, 42, []int{5000}},
		{[2]uint64{0xfe, 0}, 7, nil},
	} {
		if got := lockHolders([]byte(locks), tt.dev, tt.ino); !slices.Equal(got, tt.want) {
			t.Errorf("holders of %x:%x:%d = %v, want %v", tt.dev[0], tt.dev[1], tt.ino, got, tt.want)
		}
	}
}
