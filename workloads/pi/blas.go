package pi

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// blasFile reads a BLAS library's name and version from its file name:
// libopenblasp-r0.3.21.so is openblas 0.3.21.
// (the version first: RE2 would rather skip an optional one).
var (
	blasFile          = regexp.MustCompile(`^lib(openblas|blis|flexiblas|mkl|atlas|blas)[a-z0-9_]*?[-_.]r?(\d+(?:\.\d+)+)`)
	blasFileNoVersion = regexp.MustCompile(`^lib(openblas|blis|flexiblas|mkl|atlas|blas)()`)
)

// blasLabel is the blas label of a pi.json's versions.blas: the PIs report
// "openblas 0.3.21" (name and version, asked of the library, see
// scripts/driver.py); older ones reported the paths of the libraries mapped,
// comma-separated, which this turns into the same names, read from the
// file names, so that a label is not a 100-character path. Anything else
// is kept as is.
func blasLabel(v string) string {
	if !strings.Contains(v, "/") {
		return v
	}
	var names []string
	for _, path := range strings.Split(v, ",") {
		path = strings.TrimSpace(path)
		base := strings.ToLower(filepath.Base(path))
		name := base
		m := blasFile.FindStringSubmatch(base)
		if m == nil {
			m = blasFileNoVersion.FindStringSubmatch(base)
		}
		if m != nil {
			name = m[1]
			if name == "blas" && strings.Contains(strings.ToLower(path), "openblas") {
				name = "openblas" // Debian's libblas.so.3 alternative
			}
			if m[2] != "" {
				name += " " + m[2]
			}
		}
		if path != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	// A bare name says less than a versioned one of the same library.
	kept := names[:0:0]
	for _, n := range names {
		if !strings.Contains(n, " ") && slices.ContainsFunc(names, func(o string) bool { return strings.HasPrefix(o, n+" ") }) {
			continue
		}
		kept = append(kept, n)
	}
	return strings.Join(kept, ", ")
}
