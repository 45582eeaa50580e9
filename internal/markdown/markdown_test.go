package markdown_test

import (
	"testing"

	"github.com/seshat-bench/seshat/internal/markdown"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "matrix_size=1024, 1.5 ms", "matrix_size=1024, 1.5 ms"},
		{"HTML", "req<img src=x onerror=alert(1)>/s & co", "req&lt;img src=x onerror=alert(1)&gt;/s &amp; co"},
		{"an entity stays text", "&lt;", "&amp;lt;"},
		{"a link", "[x](javascript:alert(1))", `\[x\](javascript:alert(1))`},
		{"an image", "![x](y)", `!\[x\](y)`},
		{"emphasis", "*a* _b_ __c__", `\*a\* \_b\_ \_\_c\_\_`},
		{"an underscore in a word stays", "rate_gflops _x x_", `rate_gflops \_x x\_`},
		{"code, strike, math, a cell", "`c` ~~s~~ $x$ a|b", "\\`c\\` \\~\\~s\\~\\~ \\$x\\$ a\\|b"},
		{"a backslash", `a\*`, `a\\\*`},
		{"lines", "a\nb\r\nc", "a b  c"},
		{"not ASCII", "débit_é", "débit_é"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := markdown.Escape(tt.in); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"sqlite:.seshat/lts.db": "`sqlite:.seshat/lts.db`",
		"a`b":                   "``a`b``",
		"`a``":                  "``` `a`` ```",
		"<b>":                   "`<b>`",
		"a\nb":                  "`a b`",
		"":                      "` `",
	} {
		if got := markdown.Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}
