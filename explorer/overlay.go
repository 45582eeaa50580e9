package explorer

import (
	"maps"
	"net/url"
	"slices"
	"strings"
)

// The series page's options, kept in its URL: the x axis (?axis=build,
// the default, or time) and the series overlaid (?overlay=ID, repeated).

// Axes of the series page's charts.
const (
	AxisBuild = "build"
	AxisTime  = "time"
)

// maxOverlays bounds the series overlaid on one series page.
const maxOverlays = 6

// maxComparable bounds the series a page offers to overlay per label: the
// nearest values to the series' own.
const maxComparable = 40

// Overlay is a series drawn over a series page's charts.
type Overlay struct {
	// Name is the labels it differs in from the page's series.
	Name    string   `json:"name"`
	History *History `json:"history"`
}

// overlayData is what the page's script draws besides the history: the
// series' own name among its overlays and the overlays.
type overlayData struct {
	Name     string    `json:"name"`
	Overlays []Overlay `json:"overlays"`
}

// comparableGroup is the series that differ from a series in one label
// only, by that label: the values a page offers to overlay.
type comparableGroup struct {
	Label   string
	Options []comparableOption
	// More counts those not offered (beyond maxComparable).
	More int
}

type comparableOption struct {
	ID, Value string
	Checked   bool
}

// seriesOptions reads ?axis= and ?overlay= of a series page: the axis and
// the series overlaid, in the order given (each once).
func seriesOptions(q url.Values, snap *snapshot, sr *series) (string, []*series, error) {
	if err := checkParams(q, "axis", "overlay"); err != nil {
		return "", nil, err
	}
	axis := AxisBuild
	if vs, ok := q["axis"]; ok {
		if len(vs) != 1 || (vs[0] != AxisBuild && vs[0] != AxisTime) {
			return "", nil, badRequest("query parameter axis: want one of %s, %s", AxisBuild, AxisTime)
		}
		axis = vs[0]
	}
	var overlays []*series
	for _, id := range q["overlay"] {
		o, ok := snap.byID[id]
		switch {
		case !ok:
			return "", nil, notFound("overlay: no series %q", id)
		case o == sr:
			return "", nil, badRequest("overlay: %s is the page's own series", id)
		}
		if !slices.Contains(overlays, o) {
			overlays = append(overlays, o)
		}
	}
	if len(overlays) > maxOverlays {
		return "", nil, badRequest("overlay: %d series, at most %d", len(overlays), maxOverlays)
	}
	return axis, overlays, nil
}

// seriesPageURL is the series page of id with its options.
func seriesPageURL(id, axis string, overlays []*series) string {
	q := url.Values{}
	if axis != AxisBuild {
		q.Set("axis", axis)
	}
	for _, o := range overlays {
		q.Add("overlay", o.ID)
	}
	u := "/series/" + url.PathEscape(id)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// differing is the labels of a whose value in b differs (or b lacks),
// and those b has that a lacks, by name.
func differing(a, b map[string]string) []string {
	var out []string
	for n, v := range a {
		if w, ok := b[n]; !ok || w != v {
			out = append(out, n)
		}
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// labelText is the labels names of l as name=value, "–" for one l lacks.
func labelText(l map[string]string, names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		v, ok := l[n]
		if !ok {
			v = "–"
		}
		parts[i] = n + "=" + v
	}
	return strings.Join(parts, ", ")
}

// overlayNames names the page's series and each overlay by the labels
// that tell them apart: those in which an overlay differs from the series.
func overlayNames(sr *series, overlays []*series) (string, []string) {
	all := map[string]bool{}
	names := make([]string, len(overlays))
	for i, o := range overlays {
		d := differing(sr.Labels, o.Labels)
		names[i] = labelText(o.Labels, d)
		for _, n := range d {
			all[n] = true
		}
	}
	return labelText(sr.Labels, slices.Sorted(maps.Keys(all))), names
}

// comparable is the series of sr's workload with the same label names
// that differ from it in the value of one label (the other matrix sizes),
// grouped by that label, values in reading order: at most maxComparable
// per label, the nearest to sr's value, and those checked.
func comparable(snap *snapshot, sr *series, checked []*series) []comparableGroup {
	byLabel := map[string][]*series{}
	for _, o := range snap.series {
		if o == sr || o.Workload != sr.Workload || len(o.Labels) != len(sr.Labels) {
			continue
		}
		if d := differing(sr.Labels, o.Labels); len(d) == 1 {
			if _, ok := sr.Labels[d[0]]; ok {
				byLabel[d[0]] = append(byLabel[d[0]], o)
			}
		}
	}
	var out []comparableGroup
	for _, name := range slices.Sorted(maps.Keys(byLabel)) {
		list := byLabel[name]
		slices.SortFunc(list, func(a, b *series) int { return compareValues(a.Labels[name], b.Labels[name]) })
		own, _ := slices.BinarySearchFunc(list, sr.Labels[name], func(o *series, v string) int { return compareValues(o.Labels[name], v) })
		lo := max(0, min(own-maxComparable/2, len(list)-maxComparable))
		hi := min(len(list), lo+maxComparable)
		g := comparableGroup{Label: name}
		for i, o := range list {
			on := slices.Contains(checked, o)
			if (i < lo || i >= hi) && !on {
				g.More++
				continue
			}
			g.Options = append(g.Options, comparableOption{ID: o.ID, Value: o.Labels[name], Checked: on})
		}
		out = append(out, g)
	}
	return out
}
