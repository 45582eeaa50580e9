package store

import "testing"

func FuzzParseFilters(f *testing.F) {
	for _, s := range []string{"matrix_size=512", "k=v1:v2,k2=v", "a=1,", "=x", "a=[1", "a=null:~:", "x=1=2", " , "} {
		f.Add(s)
	}
	settings := Settings{"matrix_size": 512, "k": "v1", "a": nil, "x": []any{1}}
	f.Fuzz(func(t *testing.T, s string) {
		fs, err := ParseFilters(s)
		if err != nil {
			return
		}
		fs.Match(settings)
		// What String renders parses again (values may change type:
		// "\"1\"" renders as 1, so only the keys are compared).
		again, err := ParseFilters(fs.String())
		if err != nil && len(fs) > 0 {
			t.Fatalf("%q renders as %q, which does not parse: %v", s, fs.String(), err)
		}
		for k := range again {
			if _, ok := fs[k]; !ok {
				t.Fatalf("%q: key %q appeared in %q", s, k, fs.String())
			}
		}
	})
}
