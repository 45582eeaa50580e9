//go:build linux

package main

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes cmd die with realhost, however it ends.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
