package declared

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseSpec: any bytes as a workload file give a workload or a
// *SpecError, never a panic.
func FuzzParseSpec(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	bad, _ := filepath.Glob("testdata/bad/*.yaml")
	for _, p := range append(files, bad...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	ex, err := os.ReadFile("../../examples/llm-serving/workload.yaml")
	if err == nil {
		f.Add(ex)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := New("fuzz.yaml", data)
		if (w == nil) == (err == nil) {
			t.Fatalf("workload %v and error %v", w, err)
		}
		if err != nil {
			if _, ok := err.(*SpecError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
		}
	})
}

// FuzzExtract: any bytes in each declared file of the toy workload give
// values or nothing, never a panic.
func FuzzExtract(f *testing.F) {
	data, err := os.ReadFile("testdata/good.yaml")
	if err != nil {
		f.Fatal(err)
	}
	w, err := New("good.yaml", data)
	if err != nil {
		f.Fatal(err)
	}
	for _, content := range toyRun {
		f.Add(uint8(0), []byte(content))
	}
	f.Add(uint8(1), []byte("server: {version: [1, 2]}"))
	f.Add(uint8(2), []byte("a,b\n\"x"))
	f.Fuzz(func(t *testing.T, which uint8, content []byte) {
		names := sortedKeys(w.fileOf)
		fname := names[int(which)%len(names)]
		spec := w.spec.Files[fname]
		doc := decodeDocument(spec.Path, spec.format(), content)
		if doc.err != nil && doc.tree == nil && doc.csv == nil && doc.text == nil {
			return
		}
		for _, vname := range w.fileOf[fname] {
			v := w.spec.Values[vname]
			ms, err := w.query(vname, v, doc)
			if err == nil {
				convert(v, ms)
			}
		}
	})
}
