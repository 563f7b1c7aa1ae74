//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sqlite

import (
	"errors"
	"os"
	"runtime"
	"syscall"
)

// flock takes flock(2) on f, exclusive or shared, without waiting; false
// when another open file description holds it in a way that excludes it.
func flock(f *os.File, exclusive bool) (bool, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case !errors.Is(err, syscall.EINTR):
			return false, err
		}
	}
}

// fileID returns f's device, as the major and minor numbers /proc/locks
// shows, and inode; false where they cannot be read (or /proc/locks is not
// Linux's).
func fileID(f *os.File) (dev [2]uint64, ino uint64, ok bool) {
	fi, err := f.Stat()
	if err != nil || runtime.GOOS != "linux" {
		return dev, 0, false
	}
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat {
		return dev, 0, false
	}
	d := uint64(st.Dev)
	// Linux's encoding of a dev_t (glibc's gnu_dev_major and gnu_dev_minor).
	dev[0] = (d>>8)&0xfff | (d>>32)&^0xfff
	dev[1] = d&0xff | (d>>12)&^0xff
	return dev, uint64(st.Ino), true
}
