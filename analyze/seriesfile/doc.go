// Package seriesfile reads plain series for `seshat changepoints`: CSV with
// a header row, or JSON {"series": {"name": [numbers|null]}}, each with an
// optional time column or array.
//
// Missing values (empty CSV cells, JSON nulls) are forward-filled from the
// previous value of their series; leading ones take the first value that
// follows, as Hunter does. Bad input (a cell that is not a number, a ragged
// row, binary content, malformed JSON) is a *parsers.SyntaxError naming
// the file and the line, row, column or series; a file with nothing to
// analyse wraps ErrNoData.
package seriesfile
