// Package texttable lays out the text tables the commands print (regression,
// compare, history) so that they stay readable on a terminal, the way
// benchstat prints its tables: what every row shares is said once above the
// table (Common, one "key: value" line each), each row shows only what tells
// it apart, long prose goes below the table as numbered notes (Notes), and
// the table is fitted to Width columns (Table.Write) by cutting the cells of
// the columns that may be cut, with an ellipsis. Machine formats (JSON, CSV)
// keep everything and do not come here.
package texttable
