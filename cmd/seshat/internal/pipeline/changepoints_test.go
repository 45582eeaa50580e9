package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/seshat-bench/seshat/internal/logging"
)

// writeSeriesCSV writes n series of p points: 100 with 2% noise and level
// shifts of 5-15% at 1% of the points.
func writeSeriesCSV(tb testing.TB, path string, n, p int) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	cols := make([][]float64, n)
	for s := range cols {
		level := 100.0
		cols[s] = make([]float64, p)
		for i := range cols[s] {
			if rng.Float64() < 0.01 {
				level *= 1 + (0.05+0.1*rng.Float64())*float64(1-2*rng.IntN(2))
			}
			cols[s][i] = level * (1 + 0.02*rng.NormFloat64())
		}
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("time")
	for s := range cols {
		fmt.Fprintf(w, ",kpi_%d", s)
	}
	w.WriteByte('\n')
	for i := range p {
		w.WriteString(strconv.Itoa(i))
		for s := range cols {
			w.WriteByte(',')
			w.WriteString(strconv.FormatFloat(cols[s][i], 'f', 3, 64))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkChangePoints1000x500 is the target of issue 6: 1,000 series of
// 500 points, read, analysed and written as JSON, within 5 s.
func BenchmarkChangePoints1000x500(b *testing.B) {
	path := filepath.Join(b.TempDir(), "series.csv")
	writeSeriesCSV(b, path, 1000, 500)
	env := Env{Stdout: io.Discard, Stderr: io.Discard, Log: logging.Discard()}
	for b.Loop() {
		if err := ChangePoints(context.Background(), env, ChangePointsOptions{File: path, Format: "json"}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestChangePointsCancelled(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "series.csv")
	writeSeriesCSV(t, path, 50, 100)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env := Env{Stdout: io.Discard, Stderr: io.Discard, Log: logging.Discard()}
	if err := ChangePoints(ctx, env, ChangePointsOptions{File: path}); err == nil {
		t.Error("a cancelled run succeeded")
	}
}
