package exitcode

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Code is a process exit status.
type Code int

// The exit statuses of the CLI contract. Never a count.
const (
	Success         Code = 0 // everything went fine
	Failure         Code = 1 // I/O, network or internal error
	RegressionFound Code = 2 // a regression analysis found an unacknowledged regression
	NoData          Code = 3 // no results, or no data to work on
	InvalidInput    Code = 4 // bad flags, config or strict validation failure
)

// Error carries an exit status with the error that caused it.
type Error struct {
	Code Code
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// With attaches code to err. A nil err stays nil.
func With(code Code, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Errorf formats an error and attaches code to it. %w is honoured.
func Errorf(code Code, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// Of returns the exit status for err: Success for nil, the attached code of
// the outermost *Error in the chain, else Failure.
func Of(err error) Code {
	if err == nil {
		return Success
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Failure
}

// Input attaches the status of a failure to read an input the user named
// (a flag's file or directory, a file argument): InvalidInput when it does
// not exist or a component of its path is not a directory, a mistyped path
// the user must fix; Failure for anything else (permissions, I/O), as for
// every other error. A nil err stays nil.
func Input(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return With(InvalidInput, err)
	}
	return With(Failure, err)
}
