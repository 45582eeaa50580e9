package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Settings are the merged settings of a test root (or a matrix point),
// values as YAML decoded them.
type Settings map[string]any

// Keys returns the setting names, sorted.
func (s Settings) Keys() []string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// RepeatSetting tells repeated runs of one matrix point apart (DESIGN §4):
// 0..N-1 for the N runs of a point, the same for every point of one round
// of `seshat run`, so that the two sides of an A/B in one round share it.
const RepeatSetting = "@repeat"

// IsMeta reports whether a setting tells repeats of one matrix point apart
// (`@repeat`, `@timestamp`) rather than being a matrix variable.
func IsMeta(key string) bool { return strings.HasPrefix(key, "@") }

// Identity is the canonical text of all settings, sorted by name, `@`-prefixed
// ones included: two entries with the same identity are duplicates.
func (s Settings) Identity() string {
	return string(s.appendIdentity(make([]byte, 0, 32*len(s))))
}

func (s Settings) appendIdentity(b []byte) []byte {
	for _, k := range s.Keys() {
		b = strconv.AppendQuote(b, k)
		b = append(b, '=')
		b = appendCanonical(b, s[k])
		b = append(b, '\n')
	}
	return b
}

// CanonicalValue renders a decoded value so that equal values render equally:
// numbers compare by value (512 and 512.0 are one value), everything else by
// type and text.
func CanonicalValue(v any) string { return string(appendCanonical(nil, v)) }

func appendCanonical(b []byte, v any) []byte {
	if f, ok := Number(v); ok {
		if math.IsNaN(f) {
			return append(b, "n:NaN"...)
		}
		return strconv.AppendFloat(append(b, "n:"...), f, 'g', -1, 64)
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return strconv.AppendQuote(append(b, "s:"...), x)
	case bool:
		return strconv.AppendBool(append(b, "b:"...), x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, e)
		}
		return append(b, ']')
	case map[string]any:
		return append(Settings(x).appendIdentity(append(b, '{')), '}')
	default:
		return fmt.Appendf(b, "%T:%v", v, v)
	}
}

// Number returns a decoded value as a float64 when it is a number (an
// integer or a float, as YAML and JSON decode them).
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	return 0, false
}

// EqualValues reports whether two decoded setting values are the same value.
func EqualValues(a, b any) bool { return CanonicalValue(a) == CanonicalValue(b) }

// SortValues orders decoded values: numbers by value first, then the rest by
// their text, ties broken by type, so the order never depends on the input
// order. Used for the matrix variables and anything a user reads.
func SortValues(vs []any) {
	sort.SliceStable(vs, func(i, j int) bool { return lessValue(vs[i], vs[j]) })
}

func lessValue(a, b any) bool {
	fa, aNum := Number(a)
	fb, bNum := Number(b)
	switch {
	case aNum && bNum && fa != fb && !math.IsNaN(fa) && !math.IsNaN(fb):
		return fa < fb
	case aNum && bNum && math.IsNaN(fa) != math.IsNaN(fb):
		return !math.IsNaN(fa) // NaN last among numbers
	case aNum != bNum:
		return aNum
	}
	if ta, tb := fmt.Sprint(a), fmt.Sprint(b); ta != tb {
		return ta < tb
	}
	return CanonicalValue(a) < CanonicalValue(b)
}

// FormatValue renders a decoded value (a setting, a PI parameter) as text,
// the one way every part of seshat shows it to a child process, a store or
// a person: in run directory slugs, SESHAT_<KEY> environment variables,
// exec command substitutions, KPI labels and messages. Strings are as is,
// null is empty, lists and maps are JSON. Numbers are written as
// ECMAScript's Number.prototype.toString writes them (ECMA-262, §6.1.6.1.20):
// the shortest decimal that reads back to the same value, without exponent
// when 1e-7 <= |x| < 1e21, so JSON's 1024.0 and YAML's 1024 are both "1024"
// and 1048576.0 is "1048576"; other magnitudes take Go's exponent form
// ("1e+21", "1e-07"). A float32 is shortest for its own precision.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return formatFloat(x, 64)
	case float32:
		return formatFloat(float64(x), 32)
	case []any, map[string]any:
		// JSON as written: json.Marshal's HTML escapes (">&" as
		// \u003e\u0026) would reach labels, SESHAT_<KEY> and the pages, which
		// html/template escapes once more.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(x); err != nil {
			return fmt.Sprint(x)
		}
		return strings.TrimSuffix(b.String(), "\n")
	default:
		return fmt.Sprint(x)
	}
}

func formatFloat(x float64, bits int) string {
	if a := math.Abs(x); a == 0 || (a >= 1e-7 && a < 1e21) {
		return strconv.FormatFloat(x, 'f', -1, bits)
	}
	return strconv.FormatFloat(x, 'g', -1, bits)
}

// ThreadVariable is a thread-count environment variable a run can set with
// a setting of the same name in lower case.
type ThreadVariable struct {
	// Setting is the benchmark setting (omp_num_threads), read by the
	// runner whatever the workload, and the pi workload's label.
	Setting string
	// Env is the variable the run's child gets (OMP_NUM_THREADS).
	Env string
}

// ThreadVariables are the thread counts every run records (usage.json's
// threads) and can set per matrix value: OpenMP's, OpenBLAS's and MKL's
// pools, which numpy, torch and most BLAS-backed code size from them.
var ThreadVariables = []ThreadVariable{
	{Setting: "omp_num_threads", Env: "OMP_NUM_THREADS"},
	{Setting: "openblas_num_threads", Env: "OPENBLAS_NUM_THREADS"},
	{Setting: "mkl_num_threads", Env: "MKL_NUM_THREADS"},
}
