package download

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seshat-bench/seshat/parsers"
)

// Entry is one item of a directory listing.
type Entry struct {
	// Name is the item's name, decoded: one path segment, checked safe.
	Name string
	// Dir is true for a subdirectory (its link ends with a slash).
	Dir bool
	// Size is the size in bytes the listing gives, -1 when it gives none or
	// a rounded one (1.2K).
	Size int64
	// URL is where the item is, absolute.
	URL *url.URL
}

// Rejected is a listing entry refused because following it could write
// outside the results directory or means nothing on disk.
type Rejected struct {
	// Link is the entry as the listing wrote it (an href, an S3 key).
	Link   string
	Reason string
}

// Page is one page of a directory listing.
type Page struct {
	// Format names the server's kind of listing: autoindex (nginx, Apache,
	// lighttpd), python (http.server), gcsweb, go (net/http.FileServer).
	Format   string
	Entries  []Entry
	Rejected []Rejected
	// Next is the next page of the same listing (gcsweb splits long ones),
	// nil on the last page.
	Next *url.URL
}

// ErrNotListing is the error of a page that is no directory listing.
var ErrNotListing = errors.New("not a directory listing")

// ParseHTML reads a directory listing page served at base. The servers
// differ in their markup, so the page is read by its links: a link to a
// name directly below base is an entry, a link to base itself or to one
// of its parents is navigation (sorting, the parent directory), and any
// other link is either elsewhere (another host: ignored) or rejected (a
// `..`, a backslash, an absolute path outside base). Sizes are read where
// the format puts them: the third field after the link in a <pre> (nginx,
// Apache), the column headed "Size" of a table or grid (Apache, gcsweb).
// A page whose title is none of the formats' is ErrNotListing.
func ParseHTML(base *url.URL, data []byte) (*Page, error) {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotListing, err)
	}
	p := &Page{}
	title, hasTitle := findTitle(doc)
	switch {
	case strings.HasPrefix(title, "Index of "):
		p.Format = "autoindex"
	case strings.HasPrefix(title, "Directory listing for "):
		p.Format = "python"
	case strings.HasPrefix(title, "GCS browser: "):
		p.Format = "gcsweb"
	case !hasTitle && linksOnlyInPre(doc):
		p.Format = "go"
	case hasTitle:
		return nil, fmt.Errorf("%w (its title is %q)", ErrNotListing, parsers.Truncate(title, 60))
	default:
		return nil, fmt.Errorf("%w (no title, and not a plain list of links)", ErrNotListing)
	}
	dir := asDirectory(base)
	sizeCol := -1
	seen := map[string]bool{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if cells := rowCells(n); cells != nil && sizeCol < 0 {
				for i, c := range cells {
					if strings.EqualFold(strings.TrimSpace(textOf(c)), "size") {
						sizeCol = i
					}
				}
			}
			if n.DataAtom == atom.A {
				if href, ok := attr(n, "href"); ok {
					p.link(dir, href, n, sizeCol, seen)
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return p, nil
}

// link classifies one link of a listing page and records what it is.
func (p *Page) link(dir *url.URL, href string, a *html.Node, sizeCol int, seen map[string]bool) {
	ref, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		p.Rejected = append(p.Rejected, Rejected{href, "not a valid link"})
		return
	}
	if ref.Scheme != "" && ref.Scheme != "http" && ref.Scheme != "https" {
		return // mailto:, javascript:
	}
	u := dir.ResolveReference(ref)
	if !strings.EqualFold(u.Host, dir.Host) || u.Scheme != dir.Scheme {
		return // documentation, another server: not part of the listing
	}
	target, base := u.EscapedPath(), dir.EscapedPath()
	switch {
	case target == base || target+"/" == base:
		if u.RawQuery != "" && strings.EqualFold(strings.TrimSpace(textOf(a)), "next page") {
			p.Next = u
		}
		return // sort links, the directory itself
	case strings.HasSuffix(target, "/") && strings.HasPrefix(base, target):
		return // a parent directory
	case hasDotDot(ref.Path):
		p.Rejected = append(p.Rejected, Rejected{href, "a `..` in the path"})
		return
	case !strings.HasPrefix(target, base):
		if strings.HasPrefix(ref.Path, "/") {
			p.Rejected = append(p.Rejected, Rejected{href, "an absolute path outside the listed directory"})
		} else {
			p.Rejected = append(p.Rejected, Rejected{href, "a path outside the listed directory"})
		}
		return
	}
	rest := strings.TrimPrefix(target, base)
	isDir := strings.HasSuffix(rest, "/")
	rest = strings.TrimSuffix(rest, "/")
	if strings.Contains(rest, "/") {
		return // deeper than this directory: listed by its own page
	}
	name, err := url.PathUnescape(rest)
	if err != nil {
		p.Rejected = append(p.Rejected, Rejected{href, "not a valid link"})
		return
	}
	if why := unsafeName(name); why != "" {
		p.Rejected = append(p.Rejected, Rejected{href, why})
		return
	}
	if seen[name] {
		return
	}
	seen[name] = true
	size := int64(-1)
	if !isDir {
		size = sizeNear(a, sizeCol)
	}
	u.RawQuery, u.Fragment = "", ""
	p.Entries = append(p.Entries, Entry{Name: name, Dir: isDir, Size: size, URL: u})
}

// asDirectory is u as the directory it lists: its path ends with a slash,
// without query or fragment.
func asDirectory(u *url.URL) *url.URL {
	d := *u
	d.RawQuery, d.Fragment, d.RawFragment = "", "", ""
	if !strings.HasSuffix(d.Path, "/") {
		d.Path += "/"
		if d.RawPath != "" {
			d.RawPath += "/"
		}
	}
	return &d
}

// hasDotDot tells whether a decoded path holds a `..` segment, with either
// slash.
func hasDotDot(p string) bool {
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return true
		}
	}
	return false
}

// unsafeName says why name cannot be one path segment on disk, "" when it
// can.
func unsafeName(name string) string {
	switch {
	case name == "":
		return "an empty name"
	case name == "." || name == "..":
		return "a `" + name + "` in the path"
	case strings.Contains(name, "/"):
		return "a slash inside a name"
	case strings.Contains(name, `\`):
		return "a backslash in the name"
	case strings.ContainsRune(name, 0):
		return "a NUL byte in the name"
	case len(name) > 255:
		return "a name longer than 255 bytes"
	}
	return ""
}

// sizeNear reads the size the listing gives beside link a: in the column
// headed "Size" of its row, else the third field of the text after it in a
// <pre> line (date, time, size). Only a plain byte count is a size.
func sizeNear(a *html.Node, sizeCol int) int64 {
	if sizeCol >= 0 {
		for row := a.Parent; row != nil; row = row.Parent {
			if cells := rowCells(row); cells != nil {
				if sizeCol < len(cells) {
					return byteCount(textOf(cells[sizeCol]))
				}
				return -1
			}
		}
	}
	var line strings.Builder
	for s := a.NextSibling; s != nil; s = s.NextSibling {
		if s.Type != html.TextNode {
			break
		}
		text, _, cut := strings.Cut(s.Data, "\n")
		line.WriteString(text)
		if cut {
			break
		}
	}
	if f := strings.Fields(line.String()); len(f) >= 3 {
		return byteCount(f[2])
	}
	return -1
}

func byteCount(s string) int64 {
	s = strings.TrimSpace(s)
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return -1
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// rowCells returns the cells of a table row or grid item (<tr> of <td>
// and <th>, <li> of <div>), nil for any other element.
func rowCells(n *html.Node) []*html.Node {
	var want atom.Atom
	switch n.DataAtom {
	case atom.Tr:
		want = atom.Td
	case atom.Li:
		want = atom.Div
	default:
		return nil
	}
	var cells []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == want || c.DataAtom == atom.Th) {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return nil
	}
	return cells
}

func findTitle(n *html.Node) (string, bool) {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		return strings.TrimSpace(textOf(n)), true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t, ok := findTitle(c); ok {
			return t, true
		}
	}
	return "", false
}

// linksOnlyInPre tells whether the page is a <pre> of links and nothing
// else linked, as net/http.FileServer writes a directory.
func linksOnlyInPre(doc *html.Node) bool {
	pre, outside := 0, 0
	var walk func(n *html.Node, inPre bool)
	walk = func(n *html.Node, inPre bool) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Pre:
				pre++
				inPre = true
			case atom.A:
				if !inPre {
					outside++
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inPre)
		}
	}
	walk(doc, false)
	return pre == 1 && outside == 0
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
	}
	return b.String()
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}
