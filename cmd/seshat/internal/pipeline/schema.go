package pipeline

import (
	"fmt"
	"io"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
)

// SchemaOptions are the options of `seshat schema`.
type SchemaOptions struct {
	// Output receives the payload's JSON Schema; "-" or empty for stdout.
	Output string
	// OpenSearchTemplate, when set, receives the OpenSearch index templates
	// of the payload and KPI indices.
	OpenSearchTemplate string
	Index              lts.IndexNames
}

// Schema runs `seshat schema`: the JSON Schema of the LTS payload of every
// registered workload, and optionally the OpenSearch index templates.
func Schema(env Env, opts SchemaOptions) error {
	out := opts.Output
	if out == "" {
		out = "-"
	}
	if out == "-" && opts.OpenSearchTemplate == "-" {
		return exitcode.Errorf(exitcode.InvalidInput, "--opensearch-template -: the schema already goes to stdout; give --output FILE")
	}
	ws := env.ltsWorkloads()
	if err := atomicfile.WriteOutput(out, env.Stdout, func(w io.Writer) error { return lts.WriteSchema(w, ws) }); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	if opts.OpenSearchTemplate != "" {
		err := atomicfile.WriteOutput(opts.OpenSearchTemplate, env.Stdout, func(w io.Writer) error {
			return lts.WriteIndexTemplates(w, opts.Index, ws)
		})
		if err != nil {
			return fmt.Errorf("--opensearch-template: %w", err)
		}
	}
	return nil
}
