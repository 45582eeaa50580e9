//go:build !linux

package runner

import "os/exec"

// containment is the process group alone where Linux's cgroups and child
// subreapers are missing: a descendant that leaves the group survives.
type containment struct{}

func newContainment(bool) *containment { return &containment{} }

func (*containment) start(build func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := build()
	return cmd, cmd.Start()
}

func (*containment) kill(int) int { return 0 }

func (*containment) release() {}
