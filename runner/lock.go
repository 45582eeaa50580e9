package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
)

// LockFile is the lock file of a results directory: whoever holds its
// lock is the one writer of the directory (DESIGN §10). It stays in place
// between writers; its content names the last one.
const LockFile = ".seshat.lock"

// ErrResultsLocked is wrapped by the error of LockResults when another
// process holds the lock.
var ErrResultsLocked = errors.New("results directory in use")

// ResultsLock is the held lock of a results directory.
type ResultsLock struct {
	f    *os.File
	path string
	// Warning, when set, says the file system cannot lock (flock fails
	// with ENOLCK, ENOTSUP or ENOSYS, as some FUSE and old NFS mounts do):
	// the directory is written unlocked rather than not at all.
	Warning string
}

// Holder says who holds a results directory's lock, as its lock file
// tells (the zero value when it does not).
type Holder struct {
	PID   int
	Host  string
	Since time.Time
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "another seshat (its pid not written yet)"
	}
	s := fmt.Sprintf("seshat pid %d", h.PID)
	if h.Host != "" {
		s += " on " + h.Host
	}
	if !h.Since.IsZero() {
		s += " since " + h.Since.UTC().Format(time.RFC3339)
	}
	return s
}

// LockResults takes the lock of the results directory dir (which must
// exist) without waiting: one `seshat run`, or `regression --confirm`,
// writes a results directory at a time, so that two of them never plan
// the same run directories. The lock is an flock(2) on dir/LockFile, so it
// is released however its holder ends (exit, crash, SIGKILL); the file
// keeps the holder's pid, host and start for the next one's message. When
// another process holds it, the error wraps ErrResultsLocked, names that
// process and carries exit status 1.
func LockResults(dir string) (*ResultsLock, error) {
	path := filepath.Join(dir, LockFile)
	// O_CLOEXEC (os.OpenFile's default): a run's child must not inherit
	// the lock and keep it after seshat is gone.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the results directory: %w", err)
	}
	if err := flockNB(f); err != nil {
		if flockUnsupported(err) {
			return &ResultsLock{f: f, path: path, Warning: fmt.Sprintf("%s: %v: the results directory is not locked against a second writer", path, err)}, nil
		}
		f.Close()
		if !errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("lock the results directory: flock %s: %w", path, err)
		}
		return nil, exitcode.Errorf(exitcode.Failure, "results directory %s is in use by %s (lock file %s): one seshat run or regression --confirm writes a results directory at a time; wait for it to end, or use another --results-dir: %w",
			dir, readHolder(path), path, ErrResultsLocked)
	}
	host, _ := os.Hostname()
	line := fmt.Sprintf("pid=%d host=%s since=%s\n", os.Getpid(), strings.ReplaceAll(host, " ", "_"), time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(line), 0) // only for the messages of others
	}
	return &ResultsLock{f: f, path: path}, nil
}

// Unlock releases the lock. The file stays: removing it would let a
// process that opened it before the removal lock a file nobody else sees.
func (l *ResultsLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the last descriptor releases the flock
	l.f = nil
	return err
}

// readHolder reads who holds the lock from its file. The holder writes it
// right after taking the lock: an empty file is retried briefly.
func readHolder(path string) Holder {
	var h Holder
	for try := 0; try < 20; try++ {
		data, err := os.ReadFile(path)
		if err != nil {
			return h
		}
		if h = parseHolder(string(data)); h.PID != 0 {
			return h
		}
		time.Sleep(10 * time.Millisecond)
	}
	return h
}

func parseHolder(s string) Holder {
	var h Holder
	for _, f := range strings.Fields(s) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "pid":
			h.PID, _ = strconv.Atoi(v)
		case "host":
			h.Host = v
		case "since":
			h.Since, _ = time.Parse(time.RFC3339, v)
		}
	}
	return h
}
