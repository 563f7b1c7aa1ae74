//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package sqlite

import "os"

// flock holds nothing where the system has no flock(2) (Windows): a store
// there is not protected from a restore while another process writes it.
func flock(*os.File, bool) (bool, error) { return true, nil }

// fileID cannot be read without /proc/locks.
func fileID(*os.File) (dev [2]uint64, ino uint64, ok bool) { return dev, 0, false }
