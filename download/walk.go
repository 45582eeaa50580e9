package download

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// maxDepth bounds the walk: a server's symlink loop makes the directories
// of a listing endless.
const maxDepth = 64

// remoteFile is a file of the tree being downloaded.
type remoteFile struct {
	// rel is its path below the tree's top, slash-separated, every segment
	// checked (unsafeName).
	rel  string
	url  *url.URL
	size int64 // -1: unknown
	// unlisted is set for a file asked for by name, not seen in the
	// listing: its absence is no error.
	unlisted bool
}

// tree is what the walk found.
type tree struct {
	format string // of the top listing
	dirs   int    // listing pages read
	files  []remoteFile
}

// walk lists the tree at top: HTML pages directory by directory, up to
// jobs at a time, or an S3 bucket's pages one after the other. Problems of
// one directory are recorded and the walk goes on; an error is returned
// only when the top itself cannot be listed.
func (d *downloader) walk(ctx context.Context, top *url.URL) (*tree, error) {
	data, final, ctype, err := d.client.page(ctx, top)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", top.Redacted(), err)
	}
	if isS3(data) {
		return d.walkS3(ctx, top, data)
	}
	if mt := mediaType(ctype); mt != "" && mt != "text/html" && mt != "application/xhtml+xml" {
		return nil, fmt.Errorf("%s: %w (Content-Type %s)", top.Redacted(), ErrNotListing, mt)
	}
	first, err := ParseHTML(final, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", top.Redacted(), err)
	}
	t := &tree{format: first.Format}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, d.jobs)
	var visit func(rel string, u *url.URL, p *Page, depth int)
	// visit records one listing (following its next pages) and lists its
	// subdirectories in goroutines of their own, at most jobs at a time.
	visit = func(rel string, u *url.URL, p *Page, depth int) {
		for pages := 0; ; pages++ {
			mu.Lock()
			t.dirs++
			mu.Unlock()
			files := 0
			for _, e := range p.Entries {
				if !e.Dir {
					files++
				}
			}
			d.progress.listed(1, files)
			for _, r := range p.Rejected {
				d.problem(join(rel, ""), u, fmt.Errorf("listing entry %s rejected: %s", quote(r.Link), r.Reason))
			}
			for _, e := range p.Entries {
				child := join(rel, e.Name)
				if !e.Dir {
					mu.Lock()
					t.files = append(t.files, remoteFile{rel: child, url: e.URL, size: e.Size})
					mu.Unlock()
					continue
				}
				if depth+1 > maxDepth {
					d.problem(child+"/", e.URL, fmt.Errorf("more than %d directories deep, not listed", maxDepth))
					continue
				}
				wg.Add(1)
				go func(child string, cu *url.URL) {
					defer wg.Done()
					sem <- struct{}{}
					cp, err := d.listPage(ctx, cu)
					<-sem
					if err != nil {
						d.problem(child+"/", cu, err)
						return
					}
					visit(child, cu, cp, depth+1)
				}(child, e.URL)
			}
			if p.Next == nil || ctx.Err() != nil {
				return
			}
			if pages > 10000 {
				d.problem(join(rel, ""), u, errors.New("more than 10,000 pages, the rest not listed"))
				return
			}
			next := p.Next
			sem <- struct{}{}
			np, err := d.listPage(ctx, next)
			<-sem
			if err != nil {
				d.problem(join(rel, ""), next, err)
				return
			}
			p = np
		}
	}
	visit("", top, first, 0)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// listPage reads and parses one HTML listing page.
func (d *downloader) listPage(ctx context.Context, u *url.URL) (*Page, error) {
	data, final, ctype, err := d.client.page(ctx, u)
	if err != nil {
		return nil, err
	}
	if mt := mediaType(ctype); mt != "" && mt != "text/html" && mt != "application/xhtml+xml" {
		return nil, fmt.Errorf("%w (Content-Type %s)", ErrNotListing, mt)
	}
	return ParseHTML(final, data)
}

// walkS3 reads a bucket listing page after page, the first already read:
// ListObjectsV2's continuation tokens, or the first version's markers.
// The URL names the tree by its prefix parameter (without a delimiter, the
// listing is the whole tree below it). Objects are fetched from the
// listing's URL with the key as path (path-style https://host/bucket/key
// and virtual-hosted https://bucket.host/key alike).
func (d *downloader) walkS3(ctx context.Context, top *url.URL, data []byte) (*tree, error) {
	t := &tree{format: "s3"}
	list := *top
	objects := asDirectory(top)
	dirPrefix := ""
	seenTokens := map[string]bool{}
	for page := 0; ; page++ {
		if page > 0 {
			var err error
			if data, _, _, err = d.client.page(ctx, &list); err != nil {
				d.problem("", &list, err)
				return t, nil
			}
		}
		p, err := ParseS3(data)
		if err != nil {
			if page == 0 {
				return nil, fmt.Errorf("%s: %w", top.Redacted(), err)
			}
			d.problem("", &list, err)
			return t, nil
		}
		if page == 0 {
			dirPrefix = p.Prefix[:strings.LastIndex(p.Prefix, "/")+1]
		}
		t.dirs++
		d.progress.listed(1, len(p.Objects))
		for _, o := range p.Objects {
			rel, why := keyPath(o.Key, dirPrefix)
			if rel == "" {
				if why != "" {
					d.problem("", top, fmt.Errorf("listing entry %s rejected: %s", quote(o.Key), why))
				}
				continue
			}
			segs := strings.Split(o.Key, "/")
			for i, s := range segs {
				segs[i] = url.PathEscape(s)
			}
			t.files = append(t.files, remoteFile{rel: rel, url: objects.JoinPath(segs...), size: o.Size})
		}
		if !p.Truncated {
			return t, nil
		}
		if page >= 100000 {
			d.problem("", top, errors.New("more than 100,000 listing pages, the rest not listed"))
			return t, nil
		}
		q := list.Query()
		if p.NextToken != "" {
			if seenTokens[p.NextToken] {
				d.problem("", top, errors.New("the listing repeats a continuation token, the rest not listed"))
				return t, nil
			}
			seenTokens[p.NextToken] = true
			q.Set("continuation-token", p.NextToken)
		} else {
			q.Set("marker", p.NextMarker)
		}
		list.RawQuery = q.Encode()
	}
}

// quote writes a name from a listing in quotes, escaped only when it holds
// what a terminal would not show as it is.
func quote(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return `"` + s + `"`
}

// join appends name to a slash-separated relative path.
func join(rel, name string) string {
	if rel == "" {
		return name
	}
	if name == "" {
		return rel + "/"
	}
	return path.Join(rel, name)
}

// mediaType is the type of a Content-Type header, lower case, without
// parameters.
func mediaType(ctype string) string {
	mt, _, _ := strings.Cut(ctype, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}
