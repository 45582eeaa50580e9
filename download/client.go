package download

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxListingBytes bounds one listing page, read whole: a directory of
// 2,000 runs is about 200 KB in nginx's form (100,000 entries fit), an S3
// page of 1,000 keys about 300 KB.
const maxListingBytes = 16 << 20

// errStalled is the cause of a request cancelled for want of data.
var errStalled = errors.New("stalled")

// TooLargeError is a file over --max-file-size.
type TooLargeError struct{ Size, Max int64 }

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("more than --max-file-size (%d bytes)", e.Max)
	}
	return fmt.Sprintf("%d bytes, more than --max-file-size (%d bytes)", e.Size, e.Max)
}

// StatusError is a response other than 200 OK.
type StatusError struct {
	Code   int
	Status string // "404 Not Found"
}

func (e *StatusError) Error() string { return e.Status }

// client makes the requests of one download: redirects only to the same
// host, no request waiting longer than stall for its next bytes.
type client struct {
	http  *http.Client
	stall time.Duration
}

func newClient(jobs int, stall time.Duration) *client {
	// No proxy: packages below cmd read no environment.
	t := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: stall, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          2 * jobs,
		MaxIdleConnsPerHost:   jobs + 1,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   stall,
		ResponseHeaderTimeout: stall,
		// Sizes are compared with the listing's: take the bytes as stored.
		DisableCompression: true,
	}
	c := &http.Client{Transport: t, CheckRedirect: sameHost}
	return &client{http: c, stall: stall}
}

// sameHost refuses a redirect to another host (whatever the scheme), and
// more than 10 redirects.
func sameHost(req *http.Request, via []*http.Request) error {
	if !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
		return fmt.Errorf("redirected to another host (%s), not followed", req.URL.Redacted())
	}
	if len(via) >= 10 {
		return errors.New("more than 10 redirects")
	}
	return nil
}

// get sends a GET and calls read with the body of a 200 response; the
// body's reads keep the request alive, each bringing data within the stall
// timeout. Errors read as the reason alone ("404 Not Found", "stalled: no
// data for 30s"): the caller names the URL.
func (c *client) get(ctx context.Context, u *url.URL, read func(resp *http.Response, body io.Reader) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(c.stall, func() { cancel(errStalled) })
	defer timer.Stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.reason(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &StatusError{Code: resp.StatusCode, Status: resp.Status}
	}
	body := &stallReader{r: resp.Body, timer: timer, stall: c.stall}
	if err := read(resp, body); err != nil {
		return c.reason(ctx, err)
	}
	return nil
}

// reason strips the method and URL net/http puts in front of an error and
// names a stall as one.
func (c *client) reason(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errStalled) {
		return fmt.Errorf("stalled: no data for %s", c.stall)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// page reads a listing page whole, up to maxListingBytes; final is the URL
// it was served at, after redirects.
func (c *client) page(ctx context.Context, u *url.URL) (data []byte, final *url.URL, contentType string, err error) {
	err = c.get(ctx, u, func(resp *http.Response, body io.Reader) error {
		final, contentType = resp.Request.URL, resp.Header.Get("Content-Type")
		data, err = io.ReadAll(io.LimitReader(body, maxListingBytes+1))
		if err == nil && len(data) > maxListingBytes {
			err = fmt.Errorf("a listing page over %d bytes", maxListingBytes)
		}
		return err
	})
	return data, final, contentType, err
}

// stallReader resets the stall timer whenever data comes.
type stallReader struct {
	r     io.Reader
	timer *time.Timer
	stall time.Duration
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.timer.Reset(s.stall)
	}
	return n, err
}
