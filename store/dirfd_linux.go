//go:build linux && !seshat_portabledir

package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/seshat-bench/seshat/parsers"
)

// dir is an open directory whose files are listed, stated and read relative
// to its descriptor. A cached parse of a large tree is dominated by system
// calls: eight per test root, a stat of its directory (openChild: it is
// opened only when it must be listed) and seven stats of its stamps;
// build.json's absence is taken from the directory's stamp,
// cacheHeader.BuildDir. Opening, stating and closing every root's directory
// instead (ten calls) cost 570-705 ms of CPU a cached load of 10,000 runs
// against 479-555 ms (BenchmarkLoad/cached -bench-runs 10000, 3 alternate
// rounds at a load of 6). Relative lookups skip the path walk, and
// the raw calls skip what package os adds for general files (a netpoller
// registration per open, a FileInfo allocation per stat, a second read to
// see EOF). What it saves: `seshat parse` of bench/gen's 10,000 pi runs,
// cached, on the 2-core VM, 1.45-1.51 s of CPU against 1.56-1.65 s with
// package os (dirfd_other.go, built here with -tags seshat_portabledir),
// system time 0.64 s against 0.72 s; BenchmarkLoad/cached reports both
// (cpu-ns/op), within its noise on a busy host.
type dir struct {
	path string
	// fd is the directory's descriptor, -1 until a directory reached by
	// openChild needs its own (to be listed); until then its files are
	// named through its parent's: name/file relative to parent.fd.
	fd     int
	parent *dir
	name   string
	// refs counts the directory's own walk and its children's: the last
	// release closes fd.
	refs atomic.Int32
}

// openDir opens path (symlinks followed) as a directory and returns what it
// is, for loop detection.
func openDir(path string) (*dir, fileStat, error) {
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, fileStat{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	// Stated as openChild states: the identities of the directories the
	// walk reaches either way are compared, for loop detection.
	st, err := statAt(fd, "", "")
	if err != nil {
		_ = unix.Close(fd)
		return nil, fileStat{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	d := &dir{path: path, fd: fd}
	d.refs.Store(1)
	return d, st, nil
}

// openChild is the subdirectory name of parent, which must stay open until
// the child is closed (the walker retains it): one stat instead of an
// open, a stat and a close, as most test roots of a cached parse are only
// stated file by file. A symlink is followed, as openDir follows it.
func openChild(parent *dir, name string) (*dir, fileStat, error) {
	path := filepath.Join(parent.path, name)
	fst, err := statAt(parent.fd, "", name)
	if err != nil {
		return nil, fileStat{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if !fst.mode.IsDir() {
		return nil, fileStat{}, &fs.PathError{Op: "open", Path: path, Err: unix.ENOTDIR}
	}
	d := &dir{path: path, fd: -1, parent: parent, name: name}
	d.refs.Store(1)
	return d, fst, nil
}

// open gives the directory its own descriptor, for listing it.
func (d *dir) open() error {
	if d.fd >= 0 {
		return nil
	}
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = unix.Openat(d.parent.fd, d.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return &fs.PathError{Op: "open", Path: d.path, Err: err}
	}
	d.fd = fd
	return nil
}

// at is how a file of the directory is named to the *at system calls: rel
// under its own descriptor, or name/rel under its parent's.
func (d *dir) at(rel string) (int, string) {
	if d.fd >= 0 {
		return d.fd, rel
	}
	return d.parent.fd, d.name + "/" + rel
}

// retain keeps the directory open for a child reached by openChild.
func (d *dir) retain() { d.refs.Add(1) }

// close releases the directory: its descriptor is closed when its walk
// and every child's are done.
func (d *dir) close() {
	if d.refs.Add(-1) == 0 && d.fd >= 0 {
		_ = unix.Close(d.fd)
		d.fd = -1
	}
}

// pathErr names a file of the directory in an error; the path is only
// built when there is an error to report.
func (d *dir) pathErr(op, rel string, err error) error {
	return &fs.PathError{Op: op, Path: filepath.Join(d.path, rel), Err: err}
}

var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readDir lists the directory, sorted by name, without "." and "..".
func (d *dir) readDir() ([]dirEntry, error) {
	if err := d.open(); err != nil {
		return nil, err
	}
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var out []dirEntry
	for {
		var n int
		err := retryEINTR(func() (err error) {
			n, err = unix.Getdents(d.fd, buf)
			return err
		})
		if err != nil {
			return nil, &fs.PathError{Op: "readdirent", Path: d.path, Err: err}
		}
		if n <= 0 {
			break
		}
		var perr error
		if out, perr = d.parseDirents(buf[:n], out); perr != nil {
			return nil, perr
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// parseDirents decodes linux_dirent64 records: ino (8 bytes), off (8),
// reclen (2), type (1), then the NUL-terminated name.
func (d *dir) parseDirents(buf []byte, out []dirEntry) ([]dirEntry, error) {
	for len(buf) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen < 19 || reclen > len(buf) {
			return nil, &fs.PathError{Op: "readdirent", Path: d.path, Err: fmt.Errorf("malformed directory record of %d bytes", reclen)}
		}
		typ, nameBytes := buf[18], buf[19:reclen]
		buf = buf[reclen:]
		for i, c := range nameBytes {
			if c == 0 {
				nameBytes = nameBytes[:i]
				break
			}
		}
		name := string(nameBytes)
		if name == "." || name == ".." || name == "" {
			continue
		}
		e := dirEntry{name: name}
		switch typ {
		case unix.DT_DIR:
			e.typ = fs.ModeDir
		case unix.DT_REG:
		case unix.DT_LNK:
			e.typ = fs.ModeSymlink
		case unix.DT_UNKNOWN: // some file systems do not say: ask
			var st unix.Stat_t
			if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				e.typ = fs.ModeIrregular
			} else {
				e.typ = statOf(&st).mode
			}
		default:
			e.typ = fs.ModeIrregular
		}
		out = append(out, e)
	}
	return out, nil
}

// stat returns what the file at rel (relative to the directory, symlinks
// followed) is now.
func (d *dir) stat(rel string) (fileStat, error) {
	fd, prefix := d.fd, ""
	if fd < 0 {
		fd, prefix = d.parent.fd, d.name
	}
	st, err := statAt(fd, prefix, rel)
	if err != nil {
		return fileStat{}, d.pathErr("stat", rel, err)
	}
	return st, nil
}

// noStatx is set once statx has failed with ENOSYS (kernels before 4.11)
// or EPERM (seccomp filters that predate it): statAt uses fstatat then.
var noStatx atomic.Bool

// statAt states the file prefix/rel (rel alone when prefix is empty; the
// directory fd itself when both are) relative to the directory fd,
// symlinks followed, with statx and the name written NUL-terminated into a
// buffer on the stack: unix.Fstatat allocates a copy of the name on each
// call, as does the concatenation of prefix and rel, and a cached parse
// states eight files a run: 160,000 allocations a cached parse of 10,000
// runs. What it saves: `seshat parse` of bench/gen's 10,000 pi runs,
// cached, CPU median 1.02 s (0.90-1.11 s) against 1.08 s (0.95-1.20 s)
// with unix.Fstatat, 25 alternate runs each at a load of 2.8-4.4 on the
// 2-core VM (2026-11-27).
func statAt(fd int, prefix, rel string) (fileStat, error) {
	var buf [512]byte
	n := len(rel)
	if prefix != "" {
		n += len(prefix) + 1
	}
	if n >= len(buf) || noStatx.Load() {
		return fstatat(fd, prefix, rel)
	}
	name := buf[:0]
	if prefix != "" {
		name = append(append(name, prefix...), '/')
	}
	name = append(append(name, rel...), 0)
	if bytes.IndexByte(name[:n], 0) >= 0 {
		return fileStat{}, unix.EINVAL // as fstatat says of such a name
	}
	flags := 0
	if n == 0 {
		flags = unix.AT_EMPTY_PATH
	}
	const mask = unix.STATX_TYPE | unix.STATX_SIZE | unix.STATX_MTIME | unix.STATX_CTIME | unix.STATX_INO
	var stx unix.Statx_t
	for {
		_, _, errno := unix.Syscall6(unix.SYS_STATX, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])),
			uintptr(flags), mask, uintptr(unsafe.Pointer(&stx)), 0)
		switch {
		case errno == 0 && stx.Mask&mask == mask:
			return statxOf(&stx), nil
		case errno == 0:
			// A file system that does not give every field asked for
			// (statx may leave some out): what fstat gives instead.
			return fstatat(fd, prefix, rel)
		case errno == unix.EINTR:
			continue
		case errno == unix.ENOSYS || errno == unix.EPERM:
			noStatx.Store(true)
			return fstatat(fd, prefix, rel)
		default:
			return fileStat{}, errno
		}
	}
}

// fstatat is statAt with fstatat(2), for where statx is missing.
func fstatat(fd int, prefix, rel string) (fileStat, error) {
	if prefix != "" {
		rel = prefix + "/" + rel
	}
	var st unix.Stat_t
	var err error
	if rel == "" {
		err = retryEINTR(func() error { return unix.Fstat(fd, &st) })
	} else {
		err = retryEINTR(func() error { return unix.Fstatat(fd, rel, &st, 0) })
	}
	if err != nil {
		return fileStat{}, err
	}
	return statOf(&st), nil
}

// statxOf is statOf for statx's answer; the device is encoded as fstat
// encodes it, so the identities statAt and statOf give compare.
func statxOf(stx *unix.Statx_t) fileStat {
	return fileStat{
		size:  int64(stx.Size),
		mtime: stx.Mtime.Sec*1e9 + int64(stx.Mtime.Nsec),
		ctime: stx.Ctime.Sec*1e9 + int64(stx.Ctime.Nsec),
		mode:  modeOf(uint32(stx.Mode)),
		id:    fileID{dev: unix.Mkdev(stx.Dev_major, stx.Dev_minor), ino: stx.Ino},
	}
}

// readFile is parsers.ReadLimitedStat relative to the directory: a whole
// regular file of at most limit bytes, and what it was when opened (ok is
// false when it could not be opened). It opens non-blocking, so a FIFO
// cannot hang the parse. Reading stops at the size fstat gave: a file that
// grew since has a new stamp, which the next parse sees.
func (d *dir) readFile(rel string, limit int64) (data []byte, st fileStat, ok bool, err error) {
	fd, st, err := d.openFile(rel)
	if err != nil {
		return nil, fileStat{}, false, err
	}
	defer unix.Close(fd)
	if err := d.readable(rel, st, limit); err != nil {
		return nil, st, true, err
	}
	data = make([]byte, st.size)
	for off := 0; off < len(data); {
		var n int
		err := retryEINTR(func() (err error) {
			n, err = unix.Read(fd, data[off:])
			return err
		})
		if err != nil {
			return nil, st, true, d.pathErr("read", rel, err)
		}
		if n == 0 { // shrank since fstat: what is there
			data = data[:off]
			break
		}
		off += n
	}
	return data, st, true, nil
}

// openFile opens the file rel non-blocking, so a FIFO cannot hang the
// parse, and states it; the caller closes fd.
func (d *dir) openFile(rel string) (fd int, st fileStat, err error) {
	at, name := d.at(rel)
	err = retryEINTR(func() (err error) {
		fd, err = unix.Openat(at, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return -1, fileStat{}, d.pathErr("open", rel, err)
	}
	var ust unix.Stat_t
	if err := unix.Fstat(fd, &ust); err != nil {
		_ = unix.Close(fd)
		return -1, fileStat{}, d.pathErr("stat", rel, err)
	}
	return fd, statOf(&ust), nil
}

// readable tells why the file rel, stated as st, is not read whole: not a
// regular file, or more than limit bytes.
func (d *dir) readable(rel string, st fileStat, limit int64) error {
	if !st.mode.IsRegular() {
		return d.pathErr("read", rel, parsers.ErrNotRegular)
	}
	if st.size > limit {
		return d.pathErr("read", rel, fmt.Errorf("%d bytes, limit %d: %w", st.size, limit, parsers.ErrTooLarge))
	}
	return nil
}

func statOf(st *unix.Stat_t) fileStat {
	return fileStat{
		size:  st.Size,
		mtime: st.Mtim.Nano(),
		ctime: st.Ctim.Nano(),
		mode:  modeOf(uint32(st.Mode)),
		id:    fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)},
	}
}

// modeOf is the type of a file of mode m.
func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	default:
		return fs.ModeIrregular
	}
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// remove deletes the file rel of the directory, best effort.
func (d *dir) remove(rel string) {
	fd, name := d.at(rel)
	_ = unix.Unlinkat(fd, name, 0)
}

// mapFile maps the regular file rel of at most limit bytes read-only,
// its pages populated at once, instead of reading it: the parse cache's
// pack of a directory of 1,000 runs is 3.7 MB, read whole on every
// parse. Read, it is copied into memory the process has never touched, a
// page fault per 4 KiB page (10,000 runs: 37 MB, some 9,000 faults of
// about 7 µs each on the 2-core VM); mapped, it is the page cache's own
// pages, entered in one call. What it saves: `seshat parse` of bench/gen's
// 10,000 pi runs, cached, 20,700 page faults against 25,400-25,900 read,
// CPU 1.21 s against 1.30 s and 1.25 s against 1.27 s (medians of 6 and 8
// alternate runs at loads of 10 and 14 on the 2-core VM: within the noise
// there), peak RSS 104-115 MB against 111-132 MB.
// unmap releases the mapping. A file truncated while mapped faults when
// read past its new end (SIGBUS): readers of the mapping run under
// faultSafe, which turns that into an error.
func (d *dir) mapFile(rel string, limit int64) (data []byte, unmap func(), err error) {
	fd, st, err := d.openFile(rel)
	if err != nil {
		return nil, nil, err
	}
	defer unix.Close(fd)
	if err := d.readable(rel, st, limit); err != nil {
		return nil, nil, err
	}
	if st.size == 0 {
		return nil, func() {}, nil
	}
	data, err = unix.Mmap(fd, 0, int(st.size), unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		return nil, nil, d.pathErr("mmap", rel, err)
	}
	return data, func() { _ = unix.Munmap(data) }, nil
}
