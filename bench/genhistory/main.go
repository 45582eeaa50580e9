// Command genhistory writes what `seshat regression` is benchmarked on: a
// SQLite store of pi payloads (series x framework versions x runs, in time
// order) and an LTS file of the current runs, one per series, of the next
// version, 1 in 100 with a planted 10% regression.
//
//	go run ./bench/genhistory -history 100000 -series 1000 -store /tmp/h.db -current /tmp/current.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/seshat-bench/seshat/lts"
	_ "github.com/seshat-bench/seshat/lts/sqlite" // the sqlite: store
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

func main() {
	n := flag.Int("history", 100000, "stored payloads")
	series := flag.Int("series", 1000, "series (matrix sizes); also the number of current runs")
	versions := flag.Int("versions", 10, "framework versions in each series' history")
	storePath := flag.String("store", "bench/out/regression-history.db", "SQLite store to create")
	current := flag.String("current", "bench/out/regression-current.json", "LTS file of the current runs")
	seed := flag.Uint64("seed", 7, "random seed")
	flag.Parse()
	if err := generate(*n, *series, *versions, *storePath, *current, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "genhistory:", err)
		os.Exit(1)
	}
}

func generate(n, series, versions int, storePath, current string, seed uint64) error {
	history, now := pitest.RegressionHistory(n, series, versions, seed)
	f, err := os.Create(current)
	if err != nil {
		return err
	}
	if err := lts.WriteJSON(f, now, false); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Remove(storePath); err != nil && !os.IsNotExist(err) {
		return err
	}
	s, err := lts.Open(context.Background(), "sqlite:"+storePath, lts.StoreOptions{CreateDirs: true})
	if err != nil {
		return err
	}
	defer s.Close()
	for i := 0; i < len(history); i += 10000 {
		if _, err := s.Put(context.Background(), history[i:min(i+10000, len(history))]); err != nil {
			return err
		}
	}
	return s.Close()
}
