package parsers

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

func TestNvidiaSMIGPUs(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	tests := []struct {
		file    string
		count   int
		first   models.GPU
		last    models.GPU
		errText []string
	}{
		{file: "h100x1.csv", count: 1,
			first: models.GPU{Index: 0, Name: "NVIDIA H100 80GB HBM3", UUID: "GPU-5c0a1f3e-7b2d-4e4b-9a35-2f1c8d7e6b90", MemoryBytes: 81559 * mib, Driver: "550.54.15"}},
		{file: "a100x8.csv", count: 8,
			first: models.GPU{Index: 0, Name: "NVIDIA A100-SXM4-40GB", UUID: "GPU-0f6e5d4c-3b2a-1908-7f6e-5d4c3b2a1908", MemoryBytes: 40960 * mib, Driver: "535.129.03"},
			last:  models.GPU{Index: 7, Name: "NVIDIA A100-SXM4-40GB", UUID: "GPU-708192a3-b4c5-d6e7-f809-1a2b3c4d5e6f", MemoryBytes: 40960 * mib, Driver: "535.129.03"}},
		{file: "t4-na.csv", count: 2,
			last: models.GPU{Index: 1, Name: "Tesla T4", Driver: "470.223.02"}},
		{file: "broken.csv", count: 2,
			first: models.GPU{Index: 0, Name: "NVIDIA L4", UUID: "GPU-aaaa", MemoryBytes: 23034 * mib, Driver: "550.90.07"},
			last:  models.GPU{Index: 4, Name: "NVIDIA L4", UUID: "GPU-eeee", MemoryBytes: 23034 * mib, Driver: "550.90.07"},
			errText: []string{
				"broken.csv:2: field index: not a GPU index",
				"broken.csv:3: expected 5 fields",
				"broken.csv:4: field memory.total: not a size in MiB",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", "nvidiasmi", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			gpus, err := NvidiaSMIGPUs(tc.file, data)
			if len(gpus) != tc.count {
				t.Fatalf("got %d GPUs, want %d: %+v", len(gpus), tc.count, gpus)
			}
			if tc.first.Name != "" && !reflect.DeepEqual(gpus[0], tc.first) {
				t.Errorf("first GPU = %+v, want %+v", gpus[0], tc.first)
			}
			if tc.last.Name != "" && !reflect.DeepEqual(gpus[len(gpus)-1], tc.last) {
				t.Errorf("last GPU = %+v, want %+v", gpus[len(gpus)-1], tc.last)
			}
			if len(tc.errText) == 0 && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			for _, want := range tc.errText {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v does not contain %q", err, want)
				}
			}
		})
	}
}

func TestNvidiaSMIGPUsEmpty(t *testing.T) {
	t.Parallel()
	gpus, err := NvidiaSMIGPUs("empty", nil)
	if err != nil || len(gpus) != 0 {
		t.Errorf("empty output: %v, %v", gpus, err)
	}
}

func FuzzNvidiaSMIGPUs(f *testing.F) {
	addFixtureSeeds(f, "nvidiasmi")
	f.Add([]byte("0, \"quoted, name\", GPU-x, 1e400, d\n"))
	f.Add([]byte("0,a,b,-1,c\n\"unterminated"))
	f.Fuzz(func(t *testing.T, data []byte) {
		gpus, _ := NvidiaSMIGPUs("fuzz", data)
		for _, g := range gpus {
			if g.Index < 0 {
				t.Errorf("negative index %d", g.Index)
			}
		}
	})
}
