// Command timecmd runs a command and prints its wall time and peak resident
// memory (the child's maxrss), so bench/run.sh needs nothing beyond Go.
//
//	go run ./bench/timecmd -label "cold parse" -- seshat parse --results-dir DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	label := flag.String("label", "", "label printed before the figures")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: timecmd [-label L] -- command [args...]")
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "timecmd:", err)
		os.Exit(1)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var maxrss int64
	if ru != nil {
		maxrss = ru.Maxrss * 1024 // KiB on Linux
	}
	fmt.Printf("%-28s wall %7.3f s   user %7.3f s   sys %6.3f s   peak RSS %6.1f MB   exit %d\n",
		*label, wall.Seconds(), cmd.ProcessState.UserTime().Seconds(), cmd.ProcessState.SystemTime().Seconds(),
		float64(maxrss)/1e6, cmd.ProcessState.ExitCode())
}
