package redact_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/redact"
)

func TestURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"well-formed", "https://ci:hunter2@search:9200", "https://ci:xxxxx@search:9200"},
		{"a user only", "https://ci@search:9200", "https://ci@search:9200"},
		{"no credentials", "https://search:9200/", "https://search:9200/"},
		{"sqlite", "sqlite:.seshat/lts.db", "sqlite:.seshat/lts.db"},
		{"an '@' in a path", "sqlite:/data/@team/lts.db", "sqlite:/<secret>@team/lts.db"},
		{"an '@' in a URL's path", "https://ci.example/runs/@nightly/", "https://<secret>@nightly/"},
		{"a bad escape", "https://ci:hun%zzter2@search:92", "https://<secret>@search:92"},
		{"no slashes", "http:admin:hunter2@127.0.0.1:9200", "http:<secret>@127.0.0.1:9200"},
		{"one slash", "http:/admin:hunter2@127.0.0.1:9200", "http:/<secret>@127.0.0.1:9200"},
		{"no scheme", "admin:hunter2@127.0.0.1:9200", "admin:<secret>@127.0.0.1:9200"},
		{"unparsable", "http://admin:hunter2@[::1", "http://<secret>@[::1"},
		{"'/', '#' and '?' in the password", "http://admin:hun@ter/2:x#y?z@127.0.0.1:19221", "http://<secret>@127.0.0.1:19221"},
		{"two '@'", "http://admin:hun@ter2@127.0.0.1:9200", "http://<secret>@127.0.0.1:9200"},
		{"'/' read as the end of the host", "http://admin:1234/ter2@127.0.0.1:9200", "http://<secret>@127.0.0.1:9200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := redact.URL(tt.in); got != tt.want {
				t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCheckUserinfo(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"https://ci:hunter2@search:9200", "https://ci:hun%2Fter%40%3F%232@search:9200/x", "http://search:9200",
		"sqlite:/data/@team/lts.db", "http:admin:pw@host"} {
		if err := redact.CheckUserinfo(ok); err != nil {
			t.Errorf("CheckUserinfo(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"http://admin:p@ss/w:rd#Zq9?x@127.0.0.1:19221", "http://a:p@ss@h:1", "http://a:p/w@h:1",
		"http://a:p?w@h:1", "http://a:p#w@h:1"} {
		err := redact.CheckUserinfo(bad)
		if !errors.Is(err, redact.ErrUnencodedUserinfo) {
			t.Errorf("CheckUserinfo(%q) = %v, want ErrUnencodedUserinfo", bad, err)
		} else if !strings.Contains(err.Error(), "percent-encode") {
			t.Errorf("the error names no rule: %v", err)
		}
	}
}

func TestStripUserinfo(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://ci:hunter2@artifacts.example/job/7/": "https://artifacts.example/job/7/",
		"https://token@artifacts.example/job/7":       "https://artifacts.example/job/7",
		"https://artifacts.example/job/7/":            "https://artifacts.example/job/7/",
		"https://artifacts.example/runs/%40nightly/":  "https://artifacts.example/runs/%40nightly/",
		"https://github.com":                          "https://github.com",
	} {
		got, err := redact.StripUserinfo(in)
		if err != nil || got != want {
			t.Errorf("StripUserinfo(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"https:ci:hunter2@artifacts.example/", "https://ci:hun@ter/2@artifacts.example/", "https://ci:hunter2@[::1",
		"https://ci/hunter2@artifacts.example/"} {
		if got, err := redact.StripUserinfo(bad); err == nil || strings.Contains(got+err.Error(), "hunter2") || strings.Contains(got+err.Error(), "ter/2") {
			t.Errorf("StripUserinfo(%q) = %q, %v; want an error that shows nothing of it", bad, got, err)
		}
	}
}

func TestEnviron(t *testing.T) {
	t.Parallel()
	got := redact.Environ([]string{
		"PATH=/usr/bin",
		"HTTPS_PROXY=http://me:proxy-pw@proxy:3128",
		"SESHAT_OPENSEARCH_USERNAME=ci",
		"SESHAT_OPENSEARCH_PASSWORD=hunter2",
		"SESHAT_PASSWORD_FILE=/run/secrets/search",
		"SESHAT_API_TOKEN=hunter2",
		"SESHAT_CLIENT_SECRET=hunter2",
		"SESHAT_STORE=https://ci:hunter2@search:9200",
		"SESHAT_HISTORY=http:ci:hunter2@search:9200",
		"SESHAT_RESULTS_BASE_URL=https://ci:hunter2@artifacts.example/job/7/",
		"SESHAT_OPENSEARCH_URL=http://ci:hun@ter/2@search:9200",
		"SESHAT_NOTIFY=team@example.com",
		"SESHAT_CONFIG=ci/seshat.yaml",
	})
	want := []string{
		"PATH=/usr/bin",
		"HTTPS_PROXY=http://me:proxy-pw@proxy:3128",
		"SESHAT_OPENSEARCH_USERNAME=ci",
		"SESHAT_STORE=https://search:9200",
		"SESHAT_RESULTS_BASE_URL=https://artifacts.example/job/7/",
		"SESHAT_NOTIFY=team@example.com",
		"SESHAT_CONFIG=ci/seshat.yaml",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Environ =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"no URL", "error: cannot open model.bin: no such file", "error: cannot open model.bin: no such file"},
		{"a URL's password", "connect https://ci:hunter2@search:9200/x: refused", "connect https://ci:xxxxx@search:9200/x: refused"},
		{"quoted", `GET "http://admin:hunter2@127.0.0.1:9200" failed`, `GET "http://admin:xxxxx@127.0.0.1:9200" failed`},
		{"no scheme", "dial admin:hunter2@db:5432", "dial admin:<secret>@db:5432"},
		{"an e-mail address stays", "mail ops@example.com", "mail ops@example.com"},
		{"not UTF-8", "bad \xff byte https://u:p@h", "bad \xff byte https://u:xxxxx@h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := redact.Text(tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
