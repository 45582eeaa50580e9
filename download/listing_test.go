package download

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// entryText is an entry as the tests compare it: name, slash for a
// directory, size, decoded path of its URL.
func entryText(e Entry) string {
	s := e.Name
	if e.Dir {
		s += "/"
	}
	return fmt.Sprintf("%s %d %s", s, e.Size, e.URL.Path)
}

// The pages of testdata/listings are the same directory as each server
// lists it: nginx's and Python's captured from the servers (1.22,
// http.server of Python 3.11), Go's from net/http.FileServer, Apache's
// (both layouts of mod_autoindex) and gcsweb's written in their formats.
// Every one gives the same entries; only the sizes differ with what each
// format shows.
func TestParseHTMLFormats(t *testing.T) {
	t.Parallel()
	sized := []string{
		"100%.txt 2 /run/100%.txt", "big.bin 12345 /run/big.bin", "café.log 2 /run/café.log",
		"expe/ -1 /run/expe/", "sub dir/ -1 /run/sub dir/",
	}
	unsized := []string{
		"100%.txt -1 /run/100%.txt", "big.bin -1 /run/big.bin", "café.log -1 /run/café.log",
		"expe/ -1 /run/expe/", "sub dir/ -1 /run/sub dir/",
	}
	// Apache rounds sizes over a kilobyte (12K): not a size.
	apache := []string{
		"100%.txt 2 /run/100%.txt", "big.bin -1 /run/big.bin", "café.log 2 /run/café.log",
		"expe/ -1 /run/expe/", "sub dir/ -1 /run/sub dir/",
	}
	backslash := []Rejected{{`back%5Cslash`, "a backslash in the name"}}
	for _, tc := range []struct {
		file, base, format string
		want               []string
		rejected           []Rejected
	}{
		{"nginx.html", "http://h/run/", "autoindex", sized, backslash},
		{"python.html", "http://h/run/", "python", unsized, backslash},
		{"go.html", "http://h/run/", "go", unsized, backslash},
		{"apache-table.html", "http://h/run/", "autoindex", apache, []Rejected{{`back%5cslash`, "a backslash in the name"}}},
		{"apache-pre.html", "http://h/run/", "autoindex", apache, []Rejected{{`back%5cslash`, "a backslash in the name"}}},
		// Served at the directory without its slash, the links still resolve
		// below it.
		{"nginx.html", "http://h/run", "autoindex", sized, backslash},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			p := parseFixture(t, tc.file, tc.base)
			if p.Format != tc.format {
				t.Errorf("format %q, want %q", p.Format, tc.format)
			}
			var got []string
			for _, e := range p.Entries {
				got = append(got, entryText(e))
			}
			slices.Sort(got)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("entries\n got %q\nwant %q", got, tc.want)
			}
			if !reflect.DeepEqual(p.Rejected, tc.rejected) {
				t.Errorf("rejected %q, want %q", p.Rejected, tc.rejected)
			}
			if p.Next != nil {
				t.Errorf("next page %s, want none", p.Next)
			}
		})
	}
}

func parseFixture(t *testing.T, file, base string) *Page {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "listings", file))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseHTML(mustURL(t, base), data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return p
}

// gcsweb links with absolute paths, gives sizes in a grid column and
// splits a long directory into pages joined by a "Next page" link.
func TestParseHTMLGCSWeb(t *testing.T) {
	t.Parallel()
	const dir = "https://gcsweb.example/gcs/test-platform-results/logs/periodic-ci-seshat-nightly/1861/"
	p := parseFixture(t, "gcsweb.html", dir)
	want := []string{
		"artifacts/ -1 /gcs/test-platform-results/logs/periodic-ci-seshat-nightly/1861/artifacts/",
		"build-log.txt 23456 /gcs/test-platform-results/logs/periodic-ci-seshat-nightly/1861/build-log.txt",
	}
	var got []string
	for _, e := range p.Entries {
		got = append(got, entryText(e))
	}
	if p.Format != "gcsweb" || !reflect.DeepEqual(got, want) || len(p.Rejected) > 0 {
		t.Errorf("format %q, entries %q, rejected %q; want gcsweb, %q, none", p.Format, got, p.Rejected, want)
	}
	if p.Next == nil || p.Next.Query().Get("marker") != "logs/periodic-ci-seshat-nightly/1861/build-log.txt" {
		t.Fatalf("next page %v, want the marker after build-log.txt", p.Next)
	}
	p2 := parseFixture(t, "gcsweb-2.html", p.Next.String())
	got = nil
	for _, e := range p2.Entries {
		got = append(got, entryText(e))
	}
	want = []string{
		"finished.json 118 /gcs/test-platform-results/logs/periodic-ci-seshat-nightly/1861/finished.json",
		"prowjob.json 9876 /gcs/test-platform-results/logs/periodic-ci-seshat-nightly/1861/prowjob.json",
	}
	if !reflect.DeepEqual(got, want) || p2.Next != nil {
		t.Errorf("second page: entries %q, next %v; want %q, none", got, p2.Next, want)
	}
}

// A listing that tries to lead outside the results directory: every such
// entry is refused with its reason, links elsewhere are ignored, and the
// one good entry is kept.
func TestParseHTMLRejects(t *testing.T) {
	t.Parallel()
	p := parseFixture(t, "hostile.html", "http://h/run/")
	want := []Rejected{
		{"../../etc/passwd", "a `..` in the path"},
		{"/etc/shadow", "an absolute path outside the listed directory"},
		{"a%2Fb", "a slash inside a name"},
		{"..%2F..%2Fx", "a `..` in the path"},
		{"%2e%2e/", "a `..` in the path"},
		{`x\y`, "a backslash in the name"},
	}
	if !reflect.DeepEqual(p.Rejected, want) {
		t.Errorf("rejected\n got %q\nwant %q", p.Rejected, want)
	}
	if len(p.Entries) != 1 || entryText(p.Entries[0]) != "ok.txt 3 /run/ok.txt" {
		t.Errorf("entries %v, want only ok.txt", p.Entries)
	}
}

func TestParseHTMLNotListing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, page, want string }{
		{"a page with another title", "", `not a directory listing (its title is "Prow Status")`},
		{"text", "just some text\n", "not a directory listing (no title, and not a plain list of links)"},
		{"empty", " ", "not a directory listing (no title, and not a plain list of links)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := []byte(tc.page)
			if tc.page == "" {
				var err error
				if data, err = os.ReadFile(filepath.Join("testdata", "listings", "not-a-listing.html")); err != nil {
					t.Fatal(err)
				}
			}
			_, err := ParseHTML(mustURL(t, "http://h/run/"), data)
			if !errors.Is(err, ErrNotListing) || err.Error() != tc.want {
				t.Errorf("error %v, want %q (ErrNotListing)", err, tc.want)
			}
		})
	}
}

func TestParseS3(t *testing.T) {
	t.Parallel()
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", "s3", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	p1, err := ParseS3(read("list-1.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if p1.Prefix != "nightly/1861/" || !p1.Truncated || p1.NextToken == "" || len(p1.Objects) != 5 {
		t.Errorf("first page: prefix %q, truncated %v, token %q, %d objects; want nightly/1861/, true, a token, 5",
			p1.Prefix, p1.Truncated, p1.NextToken, len(p1.Objects))
	}
	if p1.Objects[0] != (Object{Key: "nightly/1861/expe/", Size: 0}) {
		t.Errorf("first object %+v, want the folder marker", p1.Objects[0])
	}
	p2, err := ParseS3(read("list-2.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if p2.Truncated || len(p2.Objects) == 0 {
		t.Errorf("last page: truncated %v, %d objects", p2.Truncated, len(p2.Objects))
	}
	if _, err := ParseS3(read("error-nosuchbucket.xml")); err == nil ||
		err.Error() != "S3 error NoSuchBucket: The specified bucket does not exist" {
		t.Errorf("error document: %v", err)
	}
	if _, err := ParseS3([]byte("<html></html>")); !errors.Is(err, ErrNotListing) {
		t.Errorf("HTML read as S3: %v", err)
	}
	// The first version, truncated without NextMarker: the last key is the
	// marker.
	v1 := `<ListBucketResult><IsTruncated>true</IsTruncated><Contents><Key>a/b</Key><Size>1</Size></Contents></ListBucketResult>`
	if p, err := ParseS3([]byte(v1)); err != nil || p.NextMarker != "a/b" {
		t.Errorf("v1 page: %+v, %v; want marker a/b", p, err)
	}
	// Keys the listing encodes with encoding-type=url are decoded.
	enc := `<ListBucketResult><EncodingType>url</EncodingType><Prefix>a%2F</Prefix><Contents><Key>a/b+c%C3%A9</Key><Size>1</Size></Contents></ListBucketResult>`
	if p, err := ParseS3([]byte(enc)); err != nil || p.Prefix != "a/" || p.Objects[0].Key != "a/b cé" {
		t.Errorf("url-encoded page: %+v, %v", p, err)
	}
}

func TestKeyPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ key, rel, why string }{
		{"ci/run/expe/a/pi.json", "expe/a/pi.json", ""},
		{"ci/run/expe/", "", ""},
		{"ci/other/x", "", "a key outside the listed prefix"},
		{"ci/run//etc/passwd", "", "an absolute path"},
		{"ci/run/a/../../x", "", "a `..` in the path"},
		{`ci/run/a\b`, "", "a backslash in the name"},
		{"ci/run/a//b", "", "an empty name"},
	} {
		rel, why := keyPath(tc.key, "ci/run/")
		if rel != tc.rel || why != tc.why {
			t.Errorf("keyPath(%q) = %q, %q; want %q, %q", tc.key, rel, why, tc.rel, tc.why)
		}
	}
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	for _, m := range Modes {
		if got, err := ParseMode(string(m)); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := ParseMode("importnat"); err == nil || !strings.Contains(err.Error(), "cache-only, prefer-cache, important, all") {
		t.Errorf("a misspelt mode: %v", err)
	}
}
