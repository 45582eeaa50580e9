// Package version tells which seshat build is running.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is set at link time (-ldflags "-X .../internal/version.Version=v1.2.3");
// otherwise it comes from the module build info.
var Version = ""

// String returns the version, the VCS revision, time and state the go
// command embedded (runtime/debug build settings vcs.revision, vcs.time,
// vcs.modified), and the Go version and platform:
//
//	seshat devel (commit 768d5189e8ef, 2026-11-21T13:39:49Z, modified) go1.26.0 linux/amd64
func String() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return format(Version, bi)
}

func format(linked string, bi *debug.BuildInfo) string {
	v := linked
	var rev, when string
	modified := false
	if bi != nil {
		if v == "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var details []string
	switch {
	case rev != "":
		details = append(details, "commit "+rev[:min(12, len(rev))])
		if when != "" {
			details = append(details, when)
		}
		if modified {
			details = append(details, "modified")
		}
	case v == "devel":
		details = append(details, "no VCS information: built outside a git checkout or with -buildvcs=false")
	}
	if len(details) > 0 {
		v += " (" + strings.Join(details, ", ") + ")"
	}
	return fmt.Sprintf("seshat %s %s %s/%s", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
