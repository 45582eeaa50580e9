package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	_ "github.com/seshat-bench/seshat/lts/sqlite" // the sqlite: backend
	"github.com/seshat-bench/seshat/models"
)

// A store is opened from its URL; Put is idempotent by test_uuid; Payloads
// yields every match in time order, paging internally.
func Example() {
	dir, err := os.MkdirTemp("", "seshat-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, err := lts.Open(ctx, "sqlite:"+filepath.Join(dir, "lts.db"), lts.StoreOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	payloads := ltstest.Payloads(6, ltstest.Options{Series: 2, Samples: 5, Seed: 1})
	for range 2 {
		stats, err := s.Put(ctx, payloads)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("stored %d: %d new, %d replaced\n", stats.Payloads, stats.Created, stats.Replaced)
	}
	q := lts.Query{Labels: models.Filter{"size": {"128"}}}
	for p, err := range s.Payloads(ctx, q) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(p.Metadata.Start.Format("15:04"), p.Metadata.Labels["size"], p.KPIs["elapsed_ms"].Unit)
	}
	// Output:
	// stored 6: 6 new, 0 replaced
	// stored 6: 0 new, 6 replaced
	// 00:01 128 ms
	// 00:03 128 ms
	// 00:05 128 ms
}
