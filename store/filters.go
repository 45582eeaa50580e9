package store

import (
	"fmt"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// Filters select entries by setting values: every key must match one of its
// values. The zero value selects everything.
type Filters map[string][]any

// ParseFilters reads the --filters syntax "k=v1:v2,k2=v" (models.ParseFilter)
// as a filter on settings: an entry matches when, for every key, its
// setting equals one of the values. Values are decoded as YAML scalars, as
// settings files are, so matrix_size=512 matches the integer 512 (and
// 512.0), and "abc" the string.
func ParseFilters(s string) (Filters, error) {
	text, err := models.ParseFilter(s)
	if err != nil {
		return nil, err
	}
	f := make(Filters, len(text))
	for k, values := range text {
		for _, v := range values {
			f[k] = append(f[k], parsers.ScalarValue(v))
		}
	}
	return f, nil
}

// Match reports whether settings satisfy every filter.
func (f Filters) Match(s models.Settings) bool {
	for k, want := range f {
		got, ok := s[k]
		if !ok {
			return false
		}
		found := false
		for _, w := range want {
			if models.EqualValues(got, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// String renders the filters back in --filters syntax, keys sorted.
func (f Filters) String() string {
	text := make(models.Filter, len(f))
	for k, values := range f {
		for _, v := range values {
			if v == nil {
				text[k] = append(text[k], "null")
			} else {
				text[k] = append(text[k], fmt.Sprint(v))
			}
		}
	}
	return text.String()
}
