package store

import "syscall"

// changeTime is the inode change time of a stat, in ns since the epoch:
// what no one can set back, unlike the mtime.
func changeTime(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
