// Command genseries writes a CSV of synthetic KPI series for timing
// `seshat changepoints`: a time column and N series of P points, each
// 100 with 2% noise and a few level shifts of 5-15%.
//
//	go run ./bench/genseries -series 1000 -points 500 -out series.csv
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/seshat-bench/seshat/internal/atomicfile"
)

func main() {
	series := flag.Int("series", 1000, "number of series (columns)")
	points := flag.Int("points", 500, "points per series (rows)")
	out := flag.String("out", "bench/out/series.csv", "CSV file to write")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	err := atomicfile.Write(*out, 0o644, func(w0 io.Writer) error {
		return generate(w0, *series, *points, *seed)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "genseries:", err)
		os.Exit(1)
	}
}

func generate(w0 io.Writer, series, points int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x5e5ba7))
	cols := make([][]float64, series)
	for s := range cols {
		level := 100.0
		col := make([]float64, points)
		for i := range col {
			if rng.Float64() < 0.01 {
				level *= 1 + (0.05+0.1*rng.Float64())*float64(1-2*rng.IntN(2))
			}
			col[i] = level * (1 + 0.02*rng.NormFloat64())
		}
		cols[s] = col
	}
	w := bufio.NewWriter(w0)
	w.WriteString("time")
	for s := range cols {
		fmt.Fprintf(w, ",kpi_%04d", s)
	}
	w.WriteByte('\n')
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	buf := make([]byte, 0, 32)
	for i := range points {
		w.WriteString(start.Add(time.Duration(i) * time.Hour).Format(time.RFC3339))
		for s := range cols {
			w.WriteByte(',')
			w.Write(strconv.AppendFloat(buf[:0], cols[s][i], 'f', 3, 64))
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}
