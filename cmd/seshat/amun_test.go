package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestParseAmunHWInfo: hwinfo.json as Thoth's Amun writes it (cpu_info,
// cpu_features, platform, and the OS under os_release rather than os)
// labels the run with its OS, CPU and kernel, so strict LTS validation
// accepts the payload.
func TestParseAmunHWInfo(t *testing.T) {
	t.Parallel()
	results := filepath.Join(t.TempDir(), "results")
	if err := os.CopyFS(results, os.DirFS(filepath.Join("..", "..", "testdata", "amun"))); err != nil {
		t.Fatal(err)
	}
	r := runSeshat(t, nil, "parse", "--results-dir", results, "--output-lts", "-")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var payloads []struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Results struct {
			HWInfo struct {
				Hostname string `json:"hostname"`
				OS       struct {
					ID         string `json:"id"`
					VersionID  string `json:"version_id"`
					PrettyName string `json:"pretty_name"`
				} `json:"os"`
				CPU struct {
					Vendor  string   `json:"vendor"`
					Threads int      `json:"threads"`
					Flags   []string `json:"flags"`
				} `json:"cpu"`
				Arch string `json:"arch"`
			} `json:"hwinfo"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &payloads); err != nil || len(payloads) != 1 {
		t.Fatalf("%v: %d payloads\n%s", err, len(payloads), r.stdout)
	}
	p := payloads[0]
	for label, want := range map[string]string{
		"os":        "rhel 8.3",
		"cpu_model": "Intel Xeon Processor (Skylake, IBRS)",
		"kernel":    "4.18.0-240.10.1.el8_3.x86_64",
	} {
		if got := p.Metadata.Labels[label]; got != want {
			t.Errorf("label %s = %q, want %q", label, got, want)
		}
	}
	hw := p.Results.HWInfo
	if hw.OS.PrettyName != "Red Hat Enterprise Linux 8.3 (Ootpa)" || hw.Hostname != "inspection-numpy-matmul-5b0e8f9e-3485917302" ||
		hw.CPU.Vendor != "GenuineIntel" || hw.CPU.Threads != 16 || len(hw.CPU.Flags) < 50 || hw.Arch != "x86_64" {
		t.Errorf("hwinfo read from Amun's document: %+v", hw)
	}
}
