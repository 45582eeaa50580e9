package download

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Object is one object of an S3 bucket listing.
type Object struct {
	Key  string
	Size int64
}

// S3Page is one page of a bucket listing (ListObjectsV2, or the first
// version's ListObjects that a bucket URL without parameters returns).
type S3Page struct {
	Prefix  string
	Objects []Object
	// Truncated is set when more pages follow: ask again with
	// continuation-token NextToken (ListObjectsV2) or marker NextMarker.
	Truncated  bool
	NextToken  string
	NextMarker string
}

type s3Result struct {
	XMLName               xml.Name `xml:"ListBucketResult"`
	Prefix                string   `xml:"Prefix"`
	EncodingType          string   `xml:"EncodingType"`
	IsTruncated           bool     `xml:"IsTruncated"`
	NextContinuationToken string   `xml:"NextContinuationToken"`
	NextMarker            string   `xml:"NextMarker"`
	Contents              []struct {
		Key  string `xml:"Key"`
		Size int64  `xml:"Size"`
	} `xml:"Contents"`
}

type s3Error struct {
	XMLName xml.Name `xml:"Error"`
	Code    string   `xml:"Code"`
	Message string   `xml:"Message"`
}

// isS3 tells whether a response body is an S3 document (a listing or an
// error), so that the walk reads the bucket instead of HTML pages.
func isS3(data []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Local == "ListBucketResult"
		}
	}
}

// ParseS3 reads one page of an S3 bucket listing. An S3 error document
// is returned as an error with its code and message; a truncated page
// without a way to ask for the next one is an error too.
func ParseS3(data []byte) (*S3Page, error) {
	var r s3Result
	if err := xml.Unmarshal(data, &r); err != nil {
		var e s3Error
		if xml.Unmarshal(data, &e) == nil && e.Code != "" {
			return nil, fmt.Errorf("S3 error %s: %s", e.Code, e.Message)
		}
		return nil, fmt.Errorf("%w: not an S3 bucket listing: %v", ErrNotListing, err)
	}
	p := &S3Page{Prefix: r.Prefix, Truncated: r.IsTruncated, NextToken: r.NextContinuationToken, NextMarker: r.NextMarker}
	decode := func(s string) (string, error) { return s, nil }
	if strings.EqualFold(r.EncodingType, "url") {
		decode = url.QueryUnescape
	}
	var err error
	if p.Prefix, err = decode(p.Prefix); err != nil {
		return nil, fmt.Errorf("prefix %q: %w", r.Prefix, err)
	}
	for _, c := range r.Contents {
		key, err := decode(c.Key)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", c.Key, err)
		}
		if c.Size < 0 {
			return nil, fmt.Errorf("key %q: negative size %d", c.Key, c.Size)
		}
		p.Objects = append(p.Objects, Object{Key: key, Size: c.Size})
	}
	if p.Truncated && p.NextToken == "" && p.NextMarker == "" {
		// The first version gives NextMarker only with a delimiter; the
		// last key is the marker then.
		if len(p.Objects) == 0 {
			return nil, errors.New("S3 listing truncated, with no key to continue from")
		}
		p.NextMarker = p.Objects[len(p.Objects)-1].Key
	}
	return p, nil
}

// keyPath turns an object key into a path relative to dirPrefix (the
// listed prefix up to its last slash), checking every segment: "" with a
// reason for a key that cannot be a file below the results directory.
// Keys ending in a slash are folder markers, skipped without a reason.
func keyPath(key, dirPrefix string) (rel, why string) {
	if !strings.HasPrefix(key, dirPrefix) {
		return "", "a key outside the listed prefix"
	}
	rel = key[len(dirPrefix):]
	switch {
	case rel == "" || strings.HasSuffix(rel, "/"):
		return "", ""
	case strings.HasPrefix(rel, "/"):
		return "", "an absolute path"
	}
	for _, seg := range strings.Split(rel, "/") {
		if why := unsafeName(seg); why != "" {
			return "", why
		}
	}
	return rel, ""
}
