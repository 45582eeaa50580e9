// Command serve times one `seshat serve` process as a person and a script
// use it: it starts the binary on a store, waits until the landing page
// answers, asks each page and API endpoint a number of times over real
// HTTP, and prints per endpoint the mean, median, p95 and largest time,
// beside issue 25's targets, then the process's peak resident memory
// (VmHWM of /proc/PID/status, Linux) with the target of 500 MB.
//
// Unlike BenchmarkExplorer (explorer/bench_test.go), which holds three
// servers in one test process and calls their handlers directly, this
// measures the binary a user runs: its start-up, its HTTP stack, and the
// memory of that one process. Comparisons are asked cold (each a pair of
// consecutive builds not asked before, as a person stepping through
// builds does) and warm (the same pair again).
//
//	go run ./bench/serve -seshat ./seshat -store sqlite:/tmp/lts-100000-explorer.db
//
// bench/serve.sh builds seshat and the store (the explorer benchmark's:
// 100,000 payloads × 8 KPIs) and runs it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seshat-bench/seshat/internal/procstatus"
)

func main() {
	bin := flag.String("seshat", "seshat", "the seshat binary to serve with")
	store := flag.String("store", "", "the store URL to serve (required)")
	n := flag.Int("n", 20, "requests per endpoint")
	flag.Parse()
	if *store == "" {
		fmt.Fprintln(os.Stderr, "serve: -store is required")
		os.Exit(2)
	}
	if err := run(*bin, *store, *n, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
}

// target is an issue 25 target for an endpoint: the landing page 1 s, a
// series page 300 ms, API calls a p95 of 200 ms.
type target struct {
	what  string // "mean" or "p95"
	limit time.Duration
}

type endpoint struct {
	name   string
	paths  func(i int) string
	target target
	warm   bool // asked once, untimed, before the timed requests
}

func run(bin, store string, n int, out io.Writer) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--store", store, "--addr", addr)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", bin, err)
	}
	defer func() { _ = cmd.Wait() }()
	base := "http://" + addr
	client := &http.Client{Timeout: 2 * time.Minute}
	if err := waitReady(client, base+"/", 5*time.Minute); err != nil {
		return fmt.Errorf("%w; seshat serve said: %s", err, strings.TrimSpace(stderr.String()))
	}
	ready := time.Since(start)

	var list struct {
		Series []struct {
			ID string `json:"id"`
		} `json:"series"`
	}
	if err := getJSON(client, base+"/api/series", &list); err != nil {
		return err
	}
	if len(list.Series) == 0 {
		return errors.New("the store has no series")
	}
	id := list.Series[len(list.Series)/2].ID
	var hist struct {
		Builds []struct {
			ID string `json:"id"`
		} `json:"builds"`
	}
	if err := getJSON(client, base+"/api/history?series="+id, &hist); err != nil {
		return err
	}
	var builds []string
	for _, b := range hist.Builds {
		if !slices.Contains(builds, b.ID) {
			builds = append(builds, b.ID)
		}
	}
	if len(builds) < 2 {
		return fmt.Errorf("series %s has %d builds, need 2 to compare", id, len(builds))
	}
	fixed := func(p string) func(int) string { return func(int) string { return p } }
	last := builds[len(builds)-1]
	api := target{"p95", 200 * time.Millisecond}
	endpoints := []endpoint{
		{"landing page /", fixed("/"), target{"mean", time.Second}, false},
		{"series page /series/ID", fixed("/series/" + id), target{"mean", 300 * time.Millisecond}, false},
		{"/api/series", fixed("/api/series"), api, false},
		{"/api/history?series=ID", fixed("/api/history?series=" + id), api, false},
		{"/api/builds/ID?series=ID", fixed("/api/builds/" + last + "?series=" + id), api, false},
		{"/api/builds/ID (first 200 runs)", fixed("/api/builds/" + last), api, false},
		{"/api/compare, a new pair each", func(i int) string {
			k := i%(len(builds)-1) + 1
			return "/api/compare?a=" + builds[k-1] + "&b=" + builds[k]
		}, api, false},
		{"/api/compare, the same pair", fixed("/api/compare?a=" + builds[0] + "&b=" + builds[1]), api, true},
		{"/api/alerts", fixed("/api/alerts"), api, false},
		{"alerts page /alerts", fixed("/alerts"), target{}, false},
	}
	fmt.Fprintf(out, "seshat serve --store %s: %d series, %d builds in series %s; ready (list of series read) in %s\n",
		store, len(list.Series), len(builds), id, ready.Round(time.Millisecond))
	if n > len(builds)-1 {
		fmt.Fprintf(out, "(a new pair each: only %d pairs, so requests after the %dth repeat one)\n", len(builds)-1, len(builds)-1)
	}
	if b, err := peakRSS(cmd.Process.Pid); err == nil {
		fmt.Fprintf(out, "peak RSS when ready: %d MB\n", b>>20)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "endpoint\tn\tmean\tmedian\tp95\tmax\ttarget\tpeak RSS after\t")
	for _, e := range endpoints {
		var times []time.Duration
		if e.warm {
			if _, err := get(client, base+e.paths(0)); err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
		}
		for i := range n {
			t0 := time.Now()
			if _, err := get(client, base+e.paths(i)); err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
			times = append(times, time.Since(t0))
		}
		mean, med, p95, mx := summarize(times)
		peak := "?"
		if b, err := peakRSS(cmd.Process.Pid); err == nil {
			peak = fmt.Sprintf("%d MB", b>>20)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", e.name, n, ms(mean), ms(med), ms(p95), ms(mx), verdict(e.target, mean, p95), peak)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	peak, err := peakRSS(cmd.Process.Pid)
	if err != nil {
		fmt.Fprintf(out, "peak RSS: unknown (%v)\n", err)
	} else {
		v := "met"
		if peak > 500<<20 {
			v = "MISSED"
		}
		fmt.Fprintf(out, "peak RSS of the seshat serve process: %d MB [500 MB: %s]\n", peak>>20, v)
	}
	cancel()
	return nil
}

// summarize returns the mean, the median, the p95 (nearest rank) and the
// largest of times.
func summarize(times []time.Duration) (mean, med, p95, mx time.Duration) {
	s := slices.Clone(times)
	slices.Sort(s)
	var sum time.Duration
	for _, t := range s {
		sum += t
	}
	rank := func(q float64) time.Duration {
		i := int(q*float64(len(s))+0.999999) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return sum / time.Duration(len(s)), rank(0.5), rank(0.95), s[len(s)-1]
}

func verdict(t target, mean, p95 time.Duration) string {
	got := mean
	switch t.what {
	case "":
		return "-"
	case "p95":
		got = p95
	}
	v := "met"
	if got > t.limit {
		v = "MISSED"
	}
	return fmt.Sprintf("%s <= %s: %s", t.what, ms(t.limit), v)
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitReady(c *http.Client, url string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		resp, err := c.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer 200 within %s", url, limit)
}

func get(c *http.Client, url string) ([]byte, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s: %.200s", url, resp.Status, body)
	}
	return body, nil
}

func getJSON(c *http.Client, url string, v any) error {
	body, err := get(c, url)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	return nil
}

// peakRSS reads the process's peak resident set (VmHWM) from Linux's
// /proc/PID/status.
func peakRSS(pid int) (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	if peak := procstatus.PeakRSS(status); peak > 0 {
		return peak, nil
	}
	return 0, errors.New("no VmHWM in /proc/PID/status")
}
