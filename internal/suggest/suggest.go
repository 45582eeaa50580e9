package suggest

import "github.com/hbollon/go-edlib"

// Closest returns the name of names nearest to typed, "" when none is
// within max(2, len(typed)/3) edits. typed itself is never suggested; of
// equally near names the first wins.
func Closest(typed string, names []string) string {
	best, bestD := "", max(2, len(typed)/3)+1
	for _, n := range names {
		if n == typed {
			continue
		}
		if d := edlib.OSADamerauLevenshteinDistance(typed, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}
