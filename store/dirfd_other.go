//go:build !linux || seshat_portabledir

package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/seshat-bench/seshat/parsers"
)

// dir is an open directory. Outside Linux it is only its path and every
// call goes through package os.
type dir struct{ path string }

func openDir(path string) (*dir, fileStat, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fileStat{}, err
	}
	if !st.IsDir() {
		return nil, fileStat{}, &fs.PathError{Op: "open", Path: path, Err: syscall.ENOTDIR}
	}
	return &dir{path: path}, statOf(st), nil
}

// openChild is the subdirectory name of parent.
func openChild(parent *dir, name string) (*dir, fileStat, error) {
	return openDir(filepath.Join(parent.path, name))
}

func (d *dir) retain() {}

func (d *dir) close() {}

func (d *dir) readDir() ([]dirEntry, error) {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return nil, err
	}
	out := make([]dirEntry, len(entries))
	for i, e := range entries {
		out[i] = dirEntry{name: e.Name(), typ: e.Type() & (fs.ModeDir | fs.ModeSymlink)}
		if !e.Type().IsRegular() && out[i].typ == 0 {
			out[i].typ = fs.ModeIrregular
		}
	}
	return out, nil
}

func (d *dir) stat(rel string) (fileStat, error) {
	st, err := os.Stat(filepath.Join(d.path, rel))
	if err != nil {
		return fileStat{}, err
	}
	return statOf(st), nil
}

func (d *dir) readFile(rel string, limit int64) ([]byte, fileStat, bool, error) {
	data, st, err := parsers.ReadLimitedStat(filepath.Join(d.path, rel), limit)
	if st == nil {
		return nil, fileStat{}, false, err
	}
	return data, statOf(st), true, err
}

// mapFile reads the file rel whole (dirfd_linux.go maps it); unmap does
// nothing.
func (d *dir) mapFile(rel string, limit int64) (data []byte, unmap func(), err error) {
	data, _, _, err = d.readFile(rel, limit)
	if err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}

func statOf(st fs.FileInfo) fileStat {
	fst := fileStat{size: st.Size(), mtime: st.ModTime().UnixNano(), ctime: st.ModTime().UnixNano()}
	switch {
	case st.Mode().IsRegular():
	case st.IsDir():
		fst.mode = fs.ModeDir
	case st.Mode()&fs.ModeSymlink != 0:
		fst.mode = fs.ModeSymlink
	default:
		fst.mode = fs.ModeIrregular
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		fst.id = fileID{uint64(sys.Dev), uint64(sys.Ino)}
		if c := changeTime(sys); c != 0 {
			fst.ctime = c
		}
	}
	return fst
}

func (d *dir) remove(rel string) { _ = os.Remove(filepath.Join(d.path, rel)) }
