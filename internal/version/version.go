// Package version tells which seshat build is running.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is set at link time (-ldflags "-X .../internal/version.Version=v1.2.3");
// otherwise it comes from the module build info.
var Version = ""

// String returns the version, the VCS revision when known, and the Go version.
func String() string {
	v, rev := Version, ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = s.Value[:12]
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if rev != "" {
		v += " " + rev
	}
	return fmt.Sprintf("seshat %s %s %s/%s", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
