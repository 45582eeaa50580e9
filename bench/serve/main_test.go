package main

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	var times []time.Duration
	for i := 20; i >= 1; i-- { // out of order: summarize sorts
		times = append(times, time.Duration(i)*time.Millisecond)
	}
	mean, med, p95, mx := summarize(times)
	if mean != 10500*time.Microsecond || med != 10*time.Millisecond || p95 != 19*time.Millisecond || mx != 20*time.Millisecond {
		t.Errorf("summarize = mean %v, median %v, p95 %v, max %v; want 10.5ms, 10ms, 19ms (nearest rank), 20ms", mean, med, p95, mx)
	}
}

func TestVerdict(t *testing.T) {
	t.Parallel()
	if got := verdict(target{"p95", 200 * time.Millisecond}, time.Millisecond, 201*time.Millisecond); got != "p95 <= 200.0 ms: MISSED" {
		t.Errorf("a p95 over its target: %q", got)
	}
	if got := verdict(target{"mean", time.Second}, 999*time.Millisecond, 5*time.Second); got != "mean <= 1000.0 ms: met" {
		t.Errorf("a mean under its target, the p95 over: %q", got)
	}
}

func TestPeakRSS(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is Linux's")
	}
	peak, err := peakRSS(os.Getpid())
	if err != nil || peak < 1<<20 {
		t.Errorf("peakRSS of this test process = %d, %v; want at least 1 MiB", peak, err)
	}
	if _, err := peakRSS(-1); err == nil {
		t.Error("no error for a process that does not exist")
	}
}
