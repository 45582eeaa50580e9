//go:build linux && !seshat_portabledir

package store

import (
	"context"
	"fmt"
	"os"
	"testing"
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
