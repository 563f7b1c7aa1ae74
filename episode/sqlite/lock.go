package sqlite

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
)

// A store is held by the processes that open it (docs/reliability.md,
// "Who holds a store"): every Open, writable or read-only, takes a shared
// flock(2) on the store's lock file and keeps it until Close, and what
// replaces the file or changes what every open Store relies on (Restore,
// Reembed, Reanalyze) takes it exclusive, refusing while anyone else holds
// it. The kernel drops a lock with the last descriptor of its process, so a
// crashed or killed holder leaves nothing to clean up (unlike a pid file).
//
// A read-only open may be where it cannot write (a backup's directory, a
// read-only file system): it opens the lock file there read-only (flock
// needs no write access), and where there is none and it cannot make one it
// holds nothing; its reads then check that the file at its path is still
// the one it opened (fileGuard, guard.go), so that it never serves a file a
// restore replaced.

// ErrHeld is wrapped by the error of an Open, a Restore, a Reembed or a
// Reanalyze that the store's lock refuses; the error names the process that
// holds it where the system says.
var ErrHeld = errors.New("the store is in use")

// LockPath returns the lock file of the store at path: a file of its own
// beside the store, never renamed or removed, so that every process locks
// the same file whatever becomes of the store's (Restore renames a new file
// over it).
func LockPath(path string) string { return path + ".lock" }

// storeLock is a held lock on a store's lock file; Close releases it.
type storeLock struct{ f *os.File }

// lockStore takes the lock of the store at path, exclusive or shared,
// without waiting, creating the lock file if need be: held by someone else
// in a way that excludes it, it returns an error wrapping ErrHeld naming
// the holders.
func lockStore(path string, exclusive bool) (*storeLock, error) {
	return takeLock(path, exclusive, false)
}

// lockReadOnly takes the shared lock of the store at path for a read-only
// open. Where the lock file cannot be made (a directory the process may not
// write, a read-only file system) it opens the one there for reading; where
// there is none either, or it cannot be read, it returns a nil lock and no
// error: nothing holds the store, and the caller guards its reads instead.
func lockReadOnly(path string) (*storeLock, error) {
	return takeLock(path, false, true)
}

// createLockFile opens the lock file name for reading, creating it if
// missing (flock needs no write access); a variable so that a test run as
// root, whom permissions do not bind, can refuse it as a directory it may
// not write would.
var createLockFile = func(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|os.O_CREATE, 0o644)
}

// takeLock is lockStore and lockReadOnly: readOnly, a lock file that cannot
// be made or read is no error but a nil lock.
func takeLock(path string, exclusive, readOnly bool) (*storeLock, error) {
	lp := LockPath(path)
	f, err := createLockFile(lp)
	if err != nil && readOnly && cannotCreate(err) {
		f, err = os.Open(lp)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	held, err := flock(f, exclusive)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", lp, err)
	}
	if !held {
		who := holders(f)
		f.Close()
		return nil, fmt.Errorf("%w: held by %s", ErrHeld, who)
	}
	return &storeLock{f: f}, nil
}

// cannotCreate reports whether err is a refusal to create a file: no
// permission on its directory, or a read-only file system.
func cannotCreate(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// Close releases the lock. A nil lock releases nothing.
func (l *storeLock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// maxHoldersNamed bounds the processes a refusal names.
const maxHoldersNamed = 3

// holders names the processes holding a lock on f's file, read from
// /proc/locks and /proc/PID/cmdline: "process 1234 (omoide serve -db
// memory.db)", "this process (another open of the store)", or "another
// process" where the system does not say.
func holders(f *os.File) string {
	dev, ino, ok := fileID(f)
	if !ok {
		return "another process"
	}
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		return "another process"
	}
	pids := lockHolders(locks, dev, ino)
	self := os.Getpid()
	var names []string
	ours := false
	for _, pid := range pids {
		if pid == self {
			ours = true
			continue
		}
		if len(names) == maxHoldersNamed {
			names = append(names, "…")
			break
		}
		names = append(names, describeProcess(pid))
	}
	switch {
	case len(names) > 0:
		return strings.Join(names, ", ")
	case ours:
		return "this process (another open of the store)"
	}
	return "another process"
}

// lockHolders returns the pids /proc/locks (its text) lists as holding a
// lock on the file dev:ino, in the order listed, each once; waiters ("->")
// hold nothing.
func lockHolders(locks []byte, dev [2]uint64, ino uint64) []int {
	var pids []int
	sc := bufio.NewScanner(bytes.NewReader(locks))
	for sc.Scan() {
		// 1: FLOCK  ADVISORY  WRITE 1234 fe:00:9978050 0 EOF
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[1] == "->" {
			continue
		}
		id := strings.Split(f[5], ":")
		if len(id) != 3 {
			continue
		}
		major, err1 := strconv.ParseUint(id[0], 16, 64)
		minor, err2 := strconv.ParseUint(id[1], 16, 64)
		n, err3 := strconv.ParseUint(id[2], 10, 64)
		pid, err4 := strconv.Atoi(f[4])
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || pid <= 0 {
			continue
		}
		if n == ino && major == dev[0] && minor == dev[1] && !slices.Contains(pids, pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// maxCmdline bounds the command line a refusal quotes, in bytes.
const maxCmdline = 160

// describeProcess names the process pid by its command line, as
// /proc/PID/cmdline has it: "process 1234 (omoide serve -db memory.db)".
func describeProcess(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	cmd := strings.Join(strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 }), " ")
	if err != nil || cmd == "" {
		return "process " + strconv.Itoa(pid)
	}
	if len(cmd) > maxCmdline {
		cut := maxCmdline
		for cut > 0 && !utf8.RuneStart(cmd[cut]) {
			cut--
		}
		cmd = cmd[:cut] + "…"
	}
	return fmt.Sprintf("process %d (%s)", pid, cmd)
}
