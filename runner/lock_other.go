//go:build !unix

package runner

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("locked")

// flockNB does nothing where flock(2) is missing: the results directory is
// not locked there.
func flockNB(*os.File) error { return nil }

func flockUnsupported(error) bool { return false }
