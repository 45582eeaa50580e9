//go:build !unix

package store

import "time"

func cpuTime() time.Duration { return 0 }
