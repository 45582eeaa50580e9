package analyze

// sequentialChangePoints walks x once and starts a new segment at every
// point that flag says departs from the points of the current segment
// (x[start:i]); the change points' statistics are then computed against
// their neighbours, as for e-divisive. zscore and threshold find change
// points this way: a point beyond the limit starts a new regime.
func sequentialChangePoints(x []float64, flag func(segment []float64, v float64) bool) []ChangePoint {
	var idx []int
	start := 0
	for i := 1; i < len(x); i++ {
		if flag(x[start:i], x[i]) {
			idx = append(idx, i)
			start = i
		}
	}
	cps := make([]ChangePoint, len(idx))
	for i, at := range idx {
		cps[i] = changePointAt(x, at, prevIndex(idx, i), nextIndex(idx, i, len(x)))
	}
	return cps
}

// seriesWarnings are the caveats on a plain series common to all detectors.
func seriesWarnings(x []float64, minPoints int, method string) (warns []Warning, ok bool) {
	if !allFinite(x) {
		return []Warning{warnf(WarnNonFinite, "the series holds values that are not finite numbers; not analysed")}, false
	}
	switch {
	case len(x) < minPoints:
		warns = append(warns, warnf(WarnTooFewPoints, "%d point(s): %s needs at least %d to find a change", len(x), method, minPoints))
	case allEqual(x):
		warns = append(warns, warnf(WarnAllEqual, "all %d values are equal (%g)", len(x), x[0]))
	}
	return warns, true
}
