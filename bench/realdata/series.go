package main

import (
	"time"

	"github.com/seshat-bench/seshat/bench/internal/perfseries"
)

type (
	series = perfseries.Series
	label  = perfseries.Label
)

// buildTime is the time of build i: one hour per build from the first, so
// that back-filled pushes, which share push times, keep their order.
func buildTime(i int) time.Time {
	return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
}
