package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// piSide writes an LTS file of runs of one pi matmul entry, each with
// samples per-iteration times in samples_ms: runs differ by a level drawn
// around center ms (3% between runs), samples around their run's level
// (5%). The payloads are testdata/golden/lts.json's first, renamed.
func piSide(t *testing.T, path string, rng *rand.Rand, runs, samples int, center float64, first int) {
	t.Helper()
	data, err := os.ReadFile("../../testdata/golden/lts.json")
	if err != nil {
		t.Fatal(err)
	}
	var payloads []map[string]any
	if err := json.Unmarshal(data, &payloads); err != nil {
		t.Fatal(err)
	}
	template, _ := json.Marshal(payloads[0])
	var out []map[string]any
	for i := range runs {
		var p map[string]any
		json.Unmarshal(template, &p)
		uuid := fmt.Sprintf("00000000-0000-4000-8000-%012d", first+i)
		p["metadata"].(map[string]any)["test_uuid"] = uuid
		p["metadata"].(map[string]any)["build"] = map[string]any{"id": strings.TrimSuffix(filepath.Base(path), ".json")}
		level := center * math.Exp(0.03*rng.NormFloat64())
		ms := make([]float64, samples)
		for j := range ms {
			ms[j] = math.Round(level*math.Exp(0.05*rng.NormFloat64())*1e4) / 1e4
		}
		sorted := slices.Sorted(slices.Values(ms))
		median := sorted[len(sorted)/2]
		result := p["results"].(map[string]any)["pi"].(map[string]any)["@result"].(map[string]any)
		flops := result["flops"].(float64)
		result["samples_ms"], result["elapsed"], result["rate"] = ms, median, flops/(median*1e6)
		kpis := p["kpis"].(map[string]any)
		for name, v := range kpis {
			v := v.(map[string]any)
			v["test_uuid"] = uuid
			switch name {
			case "elapsed_ms":
				v["value"] = median
			case "rate_gflops":
				v["value"] = flops / (median * 1e6)
			default:
				delete(kpis, name) // one value a run: not what this test is about
			}
		}
		out = append(out, p)
	}
	data, _ = json.Marshal(out)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCompareSamplesGolden: runs that record per-iteration samples are
// compared on all of them (3 runs x 15 samples a side): a 2x slowdown is
// found, with its ratio, interval and p, and worse; a side against
// another from the same process is "~"; no "need >= N samples" warning.
func TestCompareSamplesGolden(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(21, 2))
	a, same, slow := filepath.Join(dir, "a.json"), filepath.Join(dir, "same.json"), filepath.Join(dir, "slow.json")
	piSide(t, a, rng, 3, 15, 12, 1)
	piSide(t, same, rng, 3, 15, 12, 11)
	piSide(t, slow, rng, 3, 15, 24, 21)
	names := strings.NewReplacer(dir+"/", "")
	r := runSeshat(t, nil, "compare", a, slow)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	checkGolden(t, "compare_samples.text", names.Replace(r.stdout))
	for _, want := range []string{" x1.9", " x0.5", "n=3x15+3x15", "worse"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("2x slower: no %q in\n%s", want, r.stdout)
		}
	}
	if r := runSeshat(t, nil, "compare", a, slow, "--fail-on-worse"); r.code != 2 {
		t.Errorf("--fail-on-worse, 2x slower: exit %d, want 2", r.code)
	}
	r = runSeshat(t, nil, "compare", a, same, "--format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		KPIs []struct {
			KPI  string
			Rows []struct {
				Verdict, Method string
				Warnings        []string
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.KPIs) != 2 {
		t.Fatalf("%d KPIs, want elapsed_ms and rate_gflops:\n%s", len(doc.KPIs), r.stdout)
	}
	for _, k := range doc.KPIs {
		for _, row := range k.Rows {
			if row.Verdict != "~" || row.Method != "hierarchical-bootstrap" || len(row.Warnings) > 0 {
				t.Errorf("%s, same process: %+v", k.KPI, row)
			}
		}
	}
	// The same runs uploaded to a store compare the same as builds: their
	// samples are read from the stored results.
	store := "sqlite:" + filepath.Join(dir, "lts.db")
	for _, f := range []string{a, slow} {
		if r := runSeshat(t, nil, "upload", "--lts", f, "--store", store); r.code != 0 {
			t.Fatalf("upload: exit %d: %s", r.code, r.stderr)
		}
	}
	r = runSeshat(t, nil, "compare", "--store", store, "build:a", "build:slow")
	want, _ := os.ReadFile(filepath.Join(goldenDir, "compare_samples.text"))
	if got := strings.NewReplacer("build:a", "a.json", "build:slow", "slow.json").Replace(r.stdout); r.code != 0 || got != string(want) {
		t.Errorf("builds of a store: exit %d, not as their LTS files:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+names.Replace(runSeshat(t, nil, "compare", a, slow).stdout), "need >=") {
		t.Errorf("warnings of too few samples with 45 a side")
	}
}
