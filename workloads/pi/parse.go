package pi

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"

	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/store"
)

// ParserVersion changes whenever ParseOnce would make different Results from
// the same files (new fields, new checks, new warnings): bumping it
// invalidates every cached pi entry.
const ParserVersion = "8" // 3: Config kept as JSON text; 4: Amun's hwinfo.json read; 5: usage.json's host_start, host_end; 6: its cpus; 7: its threads; 8: the GPUs of its host states

// ParserVersion implements store.Parser.
func (Workload) ParserVersion() string { return ParserVersion }

// ArtifactDirnames implements store.Parser: pi runs write their files at the
// top of the run directory.
func (Workload) ArtifactDirnames() map[string]string { return nil }

// ImportantFiles implements store.Parser: every file ParseOnce reads.
func (Workload) ImportantFiles() []string {
	return []string{UUIDFile, ConfigFile, PIFile, HWInfoFile, UsageFile, StdoutFile, StderrFile}
}

// ParseOnce implements store.Parser. It never fails: each missing or broken
// file leaves its field empty and a warning naming the file (and the line or
// field for JSON and YAML).
func (Workload) ParseOnce(ctx *store.ParseContext) (any, error) {
	r := &Results{}
	if data, ok := readArtifact(ctx, UUIDFile); ok {
		r.UUID = decodeUUID(data, ctx)
	}
	if data, ok := readArtifact(ctx, ConfigFile); ok {
		r.Config = decodeConfig(data, ctx)
	}
	if data, ok := readArtifact(ctx, PIFile); ok {
		r.PI = decodePI(data, ctx.Settings, ctx)
	}
	if data, ok := readArtifact(ctx, HWInfoFile); ok {
		r.HWInfo = decodeHWInfo(data, ctx)
	}
	if data, ok := readArtifact(ctx, UsageFile); ok {
		r.Usage = decodeUsage(data, ctx)
	}
	// Log tails explain failures; a successful run's logs are left on disk
	// (reading them would cost two more files per entry on every parse).
	if ctx.ExitCode != 0 {
		r.StdoutTail = readLogTail(ctx, StdoutFile)
		r.StderrTail = readLogTail(ctx, StderrFile)
	}
	return r, nil
}

// readArtifact reads one artifact file; ok is false (and a warning given)
// when it is missing or unreadable.
func readArtifact(ctx *store.ParseContext, name string) (data []byte, ok bool) {
	data, err := ctx.ReadFile(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if ctx.ExitCode != 0 {
			// Expected of a failed run, but worth saying which file is absent.
			ctx.Warnf("%s: missing (the run exited with code %d)", name, ctx.ExitCode)
		} else {
			ctx.Warnf("%s: missing", name)
		}
		return nil, false
	case err != nil:
		ctx.Warnf("%v", err) // the store names the file
		return nil, false
	}
	return data, true
}

// readLogTail returns the end of a log. Logs are optional (a PI may print
// nothing), so a missing one is not a warning; an unreadable one is.
func readLogTail(ctx *store.ParseContext, name string) string {
	data, err := ctx.ReadTail(name, LogTailBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil:
		ctx.Warnf("%v", err)
		return ""
	}
	return logText(data)
}

// ParseAlways implements store.Parser: it sets the fields that depend on
// where the results directory is read from.
func (Workload) ParseAlways(ctx *store.AlwaysContext, result any) error {
	r, ok := result.(*Results)
	if !ok || r == nil {
		return fmt.Errorf("pi: internal error: results of type %T", result)
	}
	r.LocalPath = ctx.Dir
	r.URLs = nil
	if ctx.BaseURL == "" {
		return nil
	}
	// Written into the matrix and the payloads: never with the base URL's
	// credentials.
	base, err := redact.StripUserinfo(ctx.BaseURL)
	if err == nil {
		r.URLs, err = artifactURLs(base, ctx.Path, r)
	}
	if err != nil {
		ctx.Warnf("results base URL %s: %v", redact.URL(ctx.BaseURL), err)
	}
	return nil
}

// artifactURLs locates the run directory under base, and each file whose
// content made it into r (no link to a file that is not there).
func artifactURLs(base, path string, r *Results) (map[string]string, error) {
	var segments []string
	for _, s := range strings.Split(path, "/") {
		if s != "" && s != "." {
			segments = append(segments, url.PathEscape(s))
		}
	}
	dir, err := url.JoinPath(base, segments...)
	if err != nil {
		return nil, err
	}
	dir = strings.TrimSuffix(dir, "/")
	urls := map[string]string{"artifacts": dir + "/"}
	present := map[string]bool{
		PIFile:     r.PI != nil,
		HWInfoFile: r.HWInfo != nil,
		UsageFile:  r.Usage != nil,
		StdoutFile: r.StdoutTail != "",
		StderrFile: r.StderrTail != "",
	}
	for name, ok := range present {
		if ok {
			urls[name] = dir + "/" + name
		}
	}
	return urls, nil
}
