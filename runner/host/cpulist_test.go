package host

import (
	"slices"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []int
		err  string
	}{
		{in: "0", want: []int{0}},
		{in: "0-1", want: []int{0, 1}},
		{in: "0,2", want: []int{0, 2}},
		{in: " 4-6,0,5\n", want: []int{0, 4, 5, 6}},
		{in: "3,1-2", want: []int{1, 2, 3}},
		{in: "", err: "empty CPU list"},
		{in: "0-", err: `"0-": "" is not a CPU number`},
		{in: "-1", err: `"-1": "" is not a CPU number`},
		{in: "a", err: `"a": "a" is not a CPU number`},
		{in: "1,,2", err: `"": "" is not a CPU number`},
		{in: "3-1", err: `"3-1": range ends before it starts`},
		{in: "0-99999999999", err: "is beyond 65535"},
		{in: "+1", err: `"+1" is not a CPU number`},
	}
	for _, tc := range tests {
		got, err := ParseCPUList(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseCPUList(%q) error %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || !slices.Equal(got, tc.want)):
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestFormatCPUList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{0}, "0"},
		{[]int{0, 1}, "0-1"},
		{[]int{5, 0, 1, 2, 2}, "0-2,5"},
		{[]int{0, 2, 4, 5, 6, 9}, "0,2,4-6,9"},
	}
	for _, tc := range tests {
		if got := FormatCPUList(tc.in); got != tc.want {
			t.Errorf("FormatCPUList(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0", "0-3", "0,2,4-7", "1-1", "7-3", "", "0-65535", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			return
		}
		// A list read back is the list written.
		again, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !slices.Equal(again, cpus) {
			t.Errorf("%q: %v formats as %q, reads back as %v, %v", s, cpus, FormatCPUList(cpus), again, err)
		}
	})
}
