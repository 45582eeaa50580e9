package plotting

import (
	"errors"
	"strings"
	"testing"
)

func nopBuild(*Context) (*Page, error) { return &Page{}, nil }

func TestRegistryDuplicatePanics(t *testing.T) {
	t.Parallel()
	r := NewRegistry("w")
	r.AddReport("Same", "", nopBuild)
	r.AddPlot("Same", "", nopBuild) // a plot may share a report's name
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), `report: Same registered twice`) {
			t.Errorf("duplicate report: recover() = %v", p)
		}
	}()
	r.AddReport("Same", "", nopBuild)
}

func TestRegistryRefusesBadGenerators(t *testing.T) {
	t.Parallel()
	for name, g := range map[string]Generator{
		"empty name": {Kind: KindReport, Build: nopBuild},
		"padded":     {Kind: KindReport, Name: " X", Build: nopBuild},
		"no build":   {Kind: KindPlot, Name: "X"},
		"bad kind":   {Kind: "table", Name: "X", Build: nopBuild},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			NewRegistry("w").Add(g)
		})
	}
}

func TestCheckListsKnownNames(t *testing.T) {
	t.Parallel()
	a, b := NewRegistry("a"), NewRegistry("b")
	a.AddReport("Zeta", "", nopBuild)
	a.AddReport("Alpha", "", nopBuild)
	b.AddReport("Alpha", "", nopBuild)
	b.AddPlot("Box", "", nopBuild)
	regs := []*Registry{a, b}
	if err := Check(regs, []Directive{{KindReport, "Zeta"}, {KindPlot, "Box"}}); err != nil {
		t.Fatalf("known directives: %v", err)
	}
	err := Check(regs, []Directive{{KindReport, "Alpha"}, {KindReport, "Rate"}})
	var unknown *UnknownError
	if !errors.As(err, &unknown) {
		t.Fatalf("Check = %v, want *UnknownError", err)
	}
	if want := `unknown report "Rate" (known reports: "Alpha", "Zeta")`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	err = Check(regs, []Directive{{KindPlot, "Violin"}})
	if want := `unknown plot "Violin" (known plots: "Box")`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	if got := a.Reports(); len(got) != 2 || got[0].Name != "Zeta" {
		t.Errorf("Reports() = %v, want registration order", got)
	}
}
