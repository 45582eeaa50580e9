package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	vcs := func(rev, time, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: time}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name   string
		linked string
		bi     *debug.BuildInfo
		want   string
	}{
		{"go build in a checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("768d5189e8ef99f0119901a2c46fa4ebef02b0d5", "2026-11-21T13:39:49Z", "false")},
			"seshat devel (commit 768d5189e8ef, 2026-11-21T13:39:49Z)"},
		{"uncommitted changes", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("768d5189e8ef99f0119901a2c46fa4ebef02b0d5", "2026-11-21T13:39:49Z", "true")},
			"seshat devel (commit 768d5189e8ef, 2026-11-21T13:39:49Z, modified)"},
		{"pseudo-version stamped by go build", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261121133949-768d5189e8ef+dirty"},
			Settings: vcs("768d5189e8ef99f0119901a2c46fa4ebef02b0d5", "2026-11-21T13:39:49Z", "true")},
			"seshat v0.0.0-20261121133949-768d5189e8ef+dirty (commit 768d5189e8ef, 2026-11-21T13:39:49Z, modified)"},
		{"go install of a release", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}},
			"seshat v1.2.0"},
		{"linked version", "v1.3.0", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("768d5189e8ef99f0119901a2c46fa4ebef02b0d5", "2026-11-21T13:39:49Z", "false")},
			"seshat v1.3.0 (commit 768d5189e8ef, 2026-11-21T13:39:49Z)"},
		{"no VCS information", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			"seshat devel (no VCS information: built outside a git checkout or with -buildvcs=false)"},
		{"no build information", "", nil, "seshat devel (no VCS information: built outside a git checkout or with -buildvcs=false)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := format(tc.linked, tc.bi)
			if !strings.HasPrefix(got, tc.want+" go1.") {
				t.Errorf("format = %q, want %q followed by the Go version", got, tc.want)
			}
		})
	}
}
