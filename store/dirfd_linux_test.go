//go:build linux && !seshat_portabledir

package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLoadClosesDirectories: every directory a load opens is closed when it
// is done, whether its roots are cached or not, parse or fail: the roots
// reached from their parent's descriptor (openChild) keep it open by a
// count, and a count that went wrong would leak a descriptor per directory
// (or close one in use: the loads would then fail). Not parallel: it
// counts the process's open descriptors.
func TestLoadClosesDirectories(t *testing.T) {
	dir := t.TempDir()
	tree := map[string]string{}
	for e := range 3 {
		exp := fmt.Sprintf("nested/expe%d", e)
		tree[exp+"/settings.expe.yaml"] = "workload: fake\n"
		for i := range 20 {
			r := fmt.Sprintf("%s/%02d", exp, i)
			tree[r+"/settings.yaml"] = fmt.Sprintf("size: %d\n", 100*e+i)
			tree[r+"/result.txt"] = "ok\n"
			if i%7 != 3 { // some runs did not finish
				tree[r+"/exit_code"] = "0\n"
			}
		}
		tree[exp+"/05/settings.yaml"] = "size: [\n" // broken
	}
	tree["linked"] = symlinkPrefix + "nested/expe1"
	writeTree(t, dir, tree)
	before := openFDs(t)
	for _, noCache := range []bool{false, false, true} {
		m, err := Load(context.Background(), Options{ResultsDir: dir, Lookup: lookup(newFake()), NoCache: noCache})
		if err != nil {
			t.Fatal(err)
		}
		if s := m.Stats(); s.Entries != 3*20 {
			t.Fatalf("no cache %v: %d entries, want 60 (the symlink to a walked directory skipped): %+v", noCache, s.Entries, s)
		}
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open after the loads, %d before", after, before)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(fds)
}

// TestPackTruncatedWhileMapped: a pack file that another program truncates
// while a parse has it mapped faults when its records are read (SIGBUS
// past the file's new end); that costs a re-parse of the roots, with the
// corrupt-cache warning, not the process.
func TestPackTruncatedWhileMapped(t *testing.T) {
	t.Parallel()
	dir := cacheTree(t)
	p := newFake()
	mustLoad(t, Options{ResultsDir: dir, Lookup: lookup(p)})
	d, _, err := openDir(dir)
	must(t, err)
	defer d.close()
	entries, err := d.readDir()
	must(t, err)
	pk := openPack(d, ".", entries)
	defer pk.release()
	if pk.warning != "" || len(pk.records) != 3 {
		t.Fatalf("pack before truncation: warning %q, %d records", pk.warning, len(pk.records))
	}
	must(t, os.Truncate(filepath.Join(dir, CacheFile), 0))
	if rc := readCache(pk, "a"); rc.present || !strings.Contains(rc.warning, "record of a corrupt, re-parsing") {
		t.Errorf("header of a truncated record: present %v, warning %q", rc.present, rc.warning)
	}
	record, _ := pk.record("b")
	if _, err := decodeCached(p, record); err == nil || !strings.Contains(err.Error(), "invalid memory address") {
		t.Errorf("result of a truncated record: error %v, want the fault", err)
	}
}

// TestLoadUnmapsPacks: every pack a load maps is unmapped once the roots
// under it are done, whether it was rewritten or not, and a pack in a
// directory without subdirectories (its runs removed) is not mapped at all.
func TestLoadUnmapsPacks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tree := map[string]string{}
	for e := range 2 {
		for i := range 3 {
			r := fmt.Sprintf("expe%d/%02d", e, i)
			tree[r+"/settings.yaml"] = fmt.Sprintf("workload: fake\nsize: %d\n", 10*e+i)
			tree[r+"/result.txt"] = "ok\n"
			tree[r+"/exit_code"] = "0\n"
		}
	}
	writeTree(t, dir, tree)
	opts := Options{ResultsDir: dir, Lookup: lookup(newFake())}
	mustLoad(t, opts)
	pack, err := os.ReadFile(filepath.Join(dir, "expe0", CacheFile))
	must(t, err)
	must(t, os.Mkdir(filepath.Join(dir, "emptied"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "emptied", CacheFile), pack, 0o644))
	for range 2 { // rewriting a pack, then only reading them
		wantStates(t, mustLoad(t, opts), map[string]string{
			"expe0/00": "cached", "expe0/01": "cached", "expe0/02": "cached",
			"expe1/00": "cached", "expe1/01": "cached", "expe1/02": "cached",
		})
		maps, err := os.ReadFile("/proc/self/maps")
		must(t, err)
		for _, line := range strings.Split(string(maps), "\n") {
			if strings.Contains(line, dir) {
				t.Errorf("still mapped after the load: %s", line)
			}
		}
	}
}

// TestStatAtAgreesWithFstatat: statAt (statx, the name on the stack) says
// of every kind of file what fstatat(2) says, through a parent's descriptor
// or the directory's own, with the same error when there is none, and the
// directory's identity as openDir and openChild give it (loop detection
// compares them).
func TestStatAtAgreesWithFstatat(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	long := strings.Repeat("n", 200) + "/" + strings.Repeat("m", 200) + "/" + strings.Repeat("f", 200)
	writeTree(t, root, map[string]string{
		"run/settings.yaml": "size: 1\n",
		"run/empty":         "",
		"run/sub/deep.txt":  "deep\n",
		"run/link":          symlinkPrefix + "settings.yaml",
		"run/dirlink":       symlinkPrefix + "sub",
		"run/dangling":      symlinkPrefix + "nowhere",
		"run/" + long:       "far down\n",
	})
	must(t, unix.Mkfifo(filepath.Join(root, "run", "fifo"), 0o644))
	parent, _, err := openDir(root)
	must(t, err)
	defer parent.close()
	child, childSt, err := openChild(parent, "run")
	must(t, err)
	defer child.close()
	own, ownSt, err := openDir(filepath.Join(root, "run"))
	must(t, err)
	defer own.close()
	if childSt != ownSt {
		t.Errorf("run: %+v through its parent, %+v opened", childSt, ownSt)
	}
	for _, rel := range []string{"settings.yaml", "empty", "sub", "sub/deep.txt", "link", "dirlink", "dangling",
		"fifo", "missing", "settings.yaml/x", long, "bad\x00name", ""} {
		for _, d := range []*dir{child, own} {
			fd, prefix := d.fd, ""
			if fd < 0 {
				fd, prefix = d.parent.fd, d.name
			}
			got, gotErr := statAt(fd, prefix, rel)
			want, wantErr := fstatat(fd, prefix, rel)
			if got != want || !errors.Is(gotErr, unwrapErrno(wantErr)) {
				t.Errorf("%q (fd %d, prefix %q): statx %+v, %v; fstatat %+v, %v", rel, fd, prefix, got, gotErr, want, wantErr)
			}
		}
	}
	if st, err := child.stat("sub/deep.txt"); err != nil || st.size != 5 || !st.mode.IsRegular() {
		t.Errorf("sub/deep.txt: %+v, %v", st, err)
	}
}

// unwrapErrno is the errno an error carries, or the error itself.
func unwrapErrno(err error) error {
	var errno unix.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}
