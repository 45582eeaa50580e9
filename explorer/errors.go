package explorer

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/seshat-bench/seshat/lts"
)

// httpError is an error answered with its status: the message names what
// is at fault (the series, build, label or parameter).
type httpError struct {
	status int
	err    error
}

func (e *httpError) Error() string { return e.err.Error() }
func (e *httpError) Unwrap() error { return e.err }

// notFound is 404: a series, build, run, label or page that does not
// exist.
func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Errorf(format, args...)}
}

// badRequest is 400: a query parameter that does not parse or is not
// known.
func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Errorf(format, args...)}
}

// storeError is 503: the store failed; the next request tries again.
func storeError(s lts.Store, err error) error {
	var he *httpError
	if errors.As(err, &he) {
		return err
	}
	return &httpError{http.StatusServiceUnavailable, fmt.Errorf("store %s: %w", s, err)}
}

// status is the HTTP status of an error: its own, else 500. A request
// whose client went away is 499 in the log's terms; it is answered 503.
func status(err error) int {
	var he *httpError
	if errors.As(err, &he) {
		return he.status
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
