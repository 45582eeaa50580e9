package analyze

// minSegment is the fewest points a detector's segment holds on either
// side of a change point it reports: a single value is a spike, not a
// level, and a series needs 2*minSegment points to show a change.
const minSegment = 2

// spikesFirst makes a merge drop, before what pick chooses, the change
// point next to a segment of fewer than minSegment points: the one with
// the largest p-value of those, the first on ties. Dropping it merges the
// short segment into the neighbour it differs from least.
func spikesFirst(pick func([]ChangePoint) int) func([]ChangePoint) int {
	return func(cps []ChangePoint) int {
		drop := -1
		for i, c := range cps {
			if (c.NBefore < minSegment || c.NAfter < minSegment) && (drop < 0 || c.PValue > cps[drop].PValue) {
				drop = i
			}
		}
		if drop >= 0 {
			return drop
		}
		return pick(cps)
	}
}

// sequentialChangePoints walks x once and starts a new segment at every
// point that flag says departs from the values of the current segment when
// the point after it departs too; a point that departs alone is a spike,
// left out of the segment's values so that it neither starts a segment nor
// hides the next change. The change points' statistics (of all values,
// spikes included) are then computed against their neighbours, as for
// e-divisive, and merged as e-divisive's are: spikes first (spikesFirst),
// then whatever pick chooses. zscore and threshold find change points this
// way: two points beyond the limit start a new regime, which stands if the
// segments either side differ.
func sequentialChangePoints(x []float64, flag func(segment []float64, v float64) bool, pick func([]ChangePoint) int) []ChangePoint {
	var idx []int
	var seg []float64 // the current segment's values, spikes left out
	if len(x) > 0 {
		seg = []float64{x[0]}
	}
	for i := 1; i < len(x); i++ {
		switch {
		case !flag(seg, x[i]):
			seg = append(seg, x[i])
		case i+1 < len(x) && flag(seg, x[i+1]):
			idx = append(idx, i)
			seg = append(seg[:0], x[i])
		}
	}
	cps := make([]ChangePoint, len(idx))
	for i, at := range idx {
		cps[i] = changePointAt(x, at, prevIndex(idx, i), nextIndex(idx, i, len(x)))
	}
	return merge(x, cps, spikesFirst(pick))
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
