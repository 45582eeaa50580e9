package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
)

func newHostCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "host",
		Short: "Tell how fit this host is to measure on",
		Long: `host check prints, as pyperf's system show does, what makes this host
noisy: the load average against the online CPUs, the CPU pressure (the share
of the last 10 s some task waited for a CPU), the CPU frequency governor,
turbo (intel_pstate or cpufreq boost), SMT, the other processes busy over a
short watch (--sample), the cgroup's CPU quota and ASLR, and on a host with
nvidia-smi the NVIDIA GPUs (other processes on them, utilization, clocks,
persistence mode); one line each, judged ok, noisy, info or unknown, why the
noisy and info ones matter, and a verdict line last: "host: quiet", or
"host: noisy (load 1.9 on 2 CPUs; governor powersave)". It reads /proc and
/sys only, needs no privilege, and exits 0 whatever the verdict (--format
json for scripts: its "verdict" is quiet or noisy).`,
	}
	strictParent(cmd)
	cmd.AddCommand(newHostCheckCmd(g))
	return cmd
}

func newHostCheckCmd(g *globals) *cobra.Command {
	var o pipeline.HostCheckOptions
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Print what makes this host noisy, with a one-line verdict",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return pipeline.HostCheck(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Format, "format", pipeline.FormatText, "output format: text or json")
	f.DurationVar(&o.Sample, "sample", time.Second, "how long to watch the other processes for their CPU use (0: not watched)")
	return cmd
}
