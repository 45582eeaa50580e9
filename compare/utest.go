package compare

import (
	"encoding/binary"
	"math"

	"golang.org/x/perf/benchmath"
)

// uTests keeps the Mann-Whitney U tests one Build made
// (benchmath.AssumeNothing.Compare, go-moremath's stats.MannWhitneyUTest),
// by their samples' rank pattern (rankPattern): the test sees the samples
// only through their ranks, ties and sizes, so samples of one pattern have
// one result. Runs of 5 a side have 252 patterns without ties, and a serve
// comparison of two 5,000-run builds tests 4,000 rows on them: computing
// each row's exact U distribution was a sixth of compare.Build's CPU and
// of its allocations. Kept for one Build, not the process: the tests of a
// call's few hundred patterns are made again by the next.
type uTests map[string]benchmath.Comparison

// maxPatternRuns is the largest number of values of both samples whose
// tests are kept (a pattern is about two bytes a value).
const maxPatternRuns = 64

// test is benchmath.AssumeNothing.Compare(a, b), kept by rank pattern.
func (u uTests) test(a, b *benchmath.Sample) benchmath.Comparison {
	var buf [8 + 2 + 2*maxPatternRuns]byte
	key, ok := rankPattern(buf[:0], a, b)
	if !ok {
		return benchmath.AssumeNothing.Compare(a, b)
	}
	if c, hit := u[string(key)]; hit {
		return c
	}
	c := benchmath.AssumeNothing.Compare(a, b)
	u[string(key)] = c
	return c
}

// rankPattern appends to key what the U test of a and b depends on: the
// significance level, both sizes and, in increasing order of the values,
// how many of each sample every distinct value has. a's and b's Values are
// sorted (benchmath.NewSample). False when a value is NaN (its order is
// undefined) or the samples are larger than maxPatternRuns together.
func rankPattern(key []byte, a, b *benchmath.Sample) ([]byte, bool) {
	x, y := a.Values, b.Values
	if len(x)+len(y) > maxPatternRuns || a.Thresholds == nil {
		return nil, false
	}
	key = binary.LittleEndian.AppendUint64(key, math.Float64bits(a.Thresholds.CompareAlpha))
	key = append(key, byte(len(x)), byte(len(y)))
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		var v float64
		if j == len(y) || (i < len(x) && x[i] <= y[j]) {
			v = x[i]
		} else {
			v = y[j]
		}
		if math.IsNaN(v) {
			return nil, false
		}
		na, nb := 0, 0
		for ; i < len(x) && x[i] == v; i++ {
			na++
		}
		for ; j < len(y) && y[j] == v; j++ {
			nb++
		}
		key = append(key, byte(na), byte(nb))
	}
	return key, true
}
