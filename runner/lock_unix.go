//go:build unix

package runner

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

var errWouldBlock = unix.EWOULDBLOCK

// flockNB takes an exclusive flock on f without waiting (EWOULDBLOCK when
// another open file holds it).
func flockNB(f *os.File) error {
	return retryEINTR(func() error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) })
}

// flockUnsupported tells whether err says the file system cannot flock.
func flockUnsupported(err error) bool {
	return errors.Is(err, unix.ENOLCK) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS)
}

// retryEINTR calls f again while a signal interrupts it.
func retryEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
