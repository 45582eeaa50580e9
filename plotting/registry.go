package plotting

import (
	"fmt"
	"sort"
	"strings"
)

// Kind tells reports (pages of figures, tables and text) from plots (one
// figure or a few); both are generated as pages.
type Kind string

// The kinds a plots.yaml line can name.
const (
	KindReport Kind = "report"
	KindPlot   Kind = "plot"
)

// Directive is one line of a plots.yaml `generate` list or of `--generate`:
// "report: Rate per batch".
type Directive struct {
	Kind Kind
	Name string
}

func (d Directive) String() string { return string(d.Kind) + ": " + d.Name }

// ParseDirective reads "report: NAME" or "plot: NAME" (spaces around the
// colon and the name are ignored).
func ParseDirective(s string) (Directive, error) {
	kind, name, ok := strings.Cut(s, ":")
	kind, name = strings.TrimSpace(kind), strings.TrimSpace(name)
	if !ok || name == "" || (kind != string(KindReport) && kind != string(KindPlot)) {
		return Directive{}, fmt.Errorf("%q: want \"report: NAME\" or \"plot: NAME\"", s)
	}
	return Directive{Kind: Kind(kind), Name: name}, nil
}

// Generator builds one page from the entries of one workload.
type Generator struct {
	Kind        Kind
	Name        string
	Description string
	// Build returns the page; an error fails the whole command, so missing or
	// partial data must rather give a page that says what is missing.
	Build func(*Context) (*Page, error)
}

// Registry holds the reports and plots of one workload. It is filled when
// the workload registers and read-only afterwards.
type Registry struct {
	workload string
	order    []Directive
	gens     map[Directive]Generator
}

// NewRegistry returns an empty registry for the named workload.
func NewRegistry(workload string) *Registry {
	return &Registry{workload: workload, gens: map[Directive]Generator{}}
}

// Workload is the name of the workload whose entries the registry draws.
func (r *Registry) Workload() string { return r.workload }

// Add registers g. A duplicate (kind, name), an empty name or a nil Build
// panics: these are programming errors found when the workload registers.
func (r *Registry) Add(g Generator) {
	d := Directive{Kind: g.Kind, Name: strings.TrimSpace(g.Name)}
	switch {
	case d.Kind != KindReport && d.Kind != KindPlot:
		panic(fmt.Sprintf("plotting: %s %q: kind must be report or plot", r.workload, g.Name))
	case d.Name == "" || d.Name != g.Name:
		panic(fmt.Sprintf("plotting: %s: invalid %s name %q", r.workload, g.Kind, g.Name))
	case g.Build == nil:
		panic(fmt.Sprintf("plotting: %s %s has no Build function", r.workload, d))
	}
	if _, dup := r.gens[d]; dup {
		panic(fmt.Sprintf("plotting: %s %s registered twice", r.workload, d))
	}
	r.gens[d] = g
	r.order = append(r.order, d)
}

// AddReport registers a report.
func (r *Registry) AddReport(name, description string, build func(*Context) (*Page, error)) {
	r.Add(Generator{Kind: KindReport, Name: name, Description: description, Build: build})
}

// AddPlot registers a plot.
func (r *Registry) AddPlot(name, description string, build func(*Context) (*Page, error)) {
	r.Add(Generator{Kind: KindPlot, Name: name, Description: description, Build: build})
}

// Lookup returns the generator d names.
func (r *Registry) Lookup(d Directive) (Generator, bool) {
	g, ok := r.gens[d]
	return g, ok
}

// Reports returns the reports in registration order: the order the
// workload wants them read in, used when nothing is named.
func (r *Registry) Reports() []Directive {
	var out []Directive
	for _, d := range r.order {
		if d.Kind == KindReport {
			out = append(out, d)
		}
	}
	return out
}

// Names lists the registered names of a kind, sorted.
func (r *Registry) Names(kind Kind) []string {
	var out []string
	for _, d := range r.order {
		if d.Kind == kind {
			out = append(out, d.Name)
		}
	}
	sort.Strings(out)
	return out
}

// UnknownError names a directive no registry knows, with the known names.
type UnknownError struct {
	Directive Directive
	Known     map[Kind][]string
}

func (e *UnknownError) Error() string {
	known := e.Known[e.Directive.Kind]
	if len(known) == 0 {
		return fmt.Sprintf("unknown %s %q: no workload registers any %ss", e.Directive.Kind, e.Directive.Name, e.Directive.Kind)
	}
	quoted := make([]string, len(known))
	for i, n := range known {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return fmt.Sprintf("unknown %s %q (known %ss: %s)", e.Directive.Kind, e.Directive.Name, e.Directive.Kind, strings.Join(quoted, ", "))
}

// Check returns an *UnknownError for the first directive none of the
// registries knows.
func Check(regs []*Registry, ds []Directive) error {
	for _, d := range ds {
		found := false
		for _, r := range regs {
			if _, ok := r.Lookup(d); ok {
				found = true
				break
			}
		}
		if !found {
			return &UnknownError{Directive: d, Known: knownNames(regs)}
		}
	}
	return nil
}

func knownNames(regs []*Registry) map[Kind][]string {
	out := map[Kind][]string{}
	for _, kind := range []Kind{KindReport, KindPlot} {
		seen := map[string]bool{}
		for _, r := range regs {
			for _, n := range r.Names(kind) {
				if !seen[n] {
					seen[n] = true
					out[kind] = append(out[kind], n)
				}
			}
		}
		sort.Strings(out[kind])
	}
	return out
}
