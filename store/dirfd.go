package store

import (
	"errors"
	"io/fs"
	"syscall"
)

// fileStat is what the store needs of a file: its stamp (size and mtime),
// its type and its identity (for symlink loop detection).
type fileStat struct {
	size  int64
	mtime int64 // ns since the epoch
	ctime int64 // ns since the epoch: inode change, which no one can set back
	mode  fs.FileMode
	id    fileID
}

type fileID struct{ dev, ino uint64 }

// dirEntry is one name of a directory listing with its type as the listing
// gives it (symlinks not followed): fs.ModeDir, fs.ModeSymlink, 0 for a
// regular file, fs.ModeIrregular for anything else.
type dirEntry struct {
	name string
	typ  fs.FileMode
}

// isNotDir reports whether err says a path is not a directory.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
