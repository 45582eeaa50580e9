package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/internal/version"
)

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the seshat version",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(g.p.stdout, version.String())
			return err
		}),
	}
}
