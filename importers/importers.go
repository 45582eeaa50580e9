package importers

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// Input is one file to import.
type Input struct {
	// Name is the file as given, for messages; Data its content.
	Name string
	Data []byte
	// ModTime is when the file was last written: the runs' time when
	// nothing better is known.
	ModTime time.Time
}

func buildEmpty(b *models.Build) bool {
	return b == nil || (b.ID == "" && b.Commit == "" && b.Ref == "" && b.CI == nil && b.Time.IsZero())
}

// completeBuild gives a build that names none the id seshat run would:
// its CI run's, else its commit (models.Build.DerivedID), else one for the
// whole import, derived from its inputs so that importing them again gives
// the same.
func completeBuild(b models.Build, digest []byte) models.Build {
	if b.ID == "" {
		b.ID = b.DerivedID()
	}
	if b.ID == "" {
		b.ID = fmt.Sprintf("import-%x", digest[:6])
	}
	return b
}

// Run is one run directory to write.
type Run struct {
	// Slug names the directory after its number (NNN__slug).
	Slug     string
	Settings map[string]any
	// Files are written in the directory, by name (slash-separated).
	Files map[string][]byte
	// Build is what was under test (build.json); nil when nothing tells.
	Build *models.Build
	// ExitCode is the run's exit status (0 unless the input says it failed).
	ExitCode int
}

// Options are the flags of `seshat import`.
type Options struct {
	// Build overrides, field by field, what the inputs tell of the build.
	Build models.Build
	// Time is the runs' start when the input has none (else the input's
	// modification time).
	Time time.Time
	// Expe names the experiment directory; by default the input's name.
	Expe string
}

// Importer reads one format.
type Importer interface {
	// Format is the name `seshat import` takes.
	Format() string
	// Read returns the runs of one input, and warnings for the parts it
	// skipped (a malformed line), each naming the input and line. An error
	// means the input as a whole is not of this format.
	Read(in Input, opts Options) (runs []Run, warnings []string, err error)
}

// DirImporter is the ability of an importer to take a directory as an
// input (criterion's target/criterion): Files lists the inputs of its
// format below it, sorted.
type DirImporter interface {
	Files(dir string) ([]string, error)
}

var importers = map[string]Importer{}

func register(i Importer) {
	if _, dup := importers[i.Format()]; dup {
		panic("importers: " + i.Format() + " registered twice")
	}
	importers[i.Format()] = i
}

// Formats lists the known formats, sorted.
func Formats() []string {
	out := make([]string, 0, len(importers))
	for f := range importers {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the importer of a format.
func Lookup(format string) (Importer, bool) {
	i, ok := importers[format]
	return i, ok
}

// Summary says what an import wrote.
type Summary struct {
	Inputs, Runs int
	// Warnings name what was skipped, by input and line.
	Warnings []string
	// Dirs are the experiment directories written, one per input.
	Dirs []string
}

// Import reads every input with the format's importer and writes their
// runs into one experiment directory under resultsDir (--expe, else the
// first input's name). Runs with the same settings, within an input or
// across inputs, are repeats of one point: they get @repeat 0, 1, ... An
// input that cannot be read is named in the error; the others are still
// imported. An experiment directory that already exists is refused, so
// that nothing already there is mixed or lost.
func Import(format string, inputs []string, resultsDir string, opts Options) (Summary, error) {
	var s Summary
	imp, ok := Lookup(format)
	if !ok {
		return s, exitcode.Errorf(exitcode.InvalidInput, "unknown format %q (known: %s)", format, strings.Join(Formats(), ", "))
	}
	if resultsDir == "" {
		return s, exitcode.Errorf(exitcode.InvalidInput, "--results-dir is required")
	}
	if len(inputs) == 0 {
		return s, exitcode.Errorf(exitcode.InvalidInput, "name at least one %s file to import", format)
	}
	expe := opts.Expe
	if expe == "" {
		expe = expeName(inputs[0])
	} else if !models.ValidExperimentName(expe) {
		return s, exitcode.Errorf(exitcode.InvalidInput, "--expe %q: %s", expe, models.ExperimentNameRule)
	}
	dir := filepath.Join(resultsDir, expe)
	if _, err := os.Stat(dir); err == nil {
		return s, exitcode.Errorf(exitcode.InvalidInput, "%s: already exists: import into a new experiment (--expe) or remove it", dir)
	}
	var errs []error
	var read []Input
	var runs []Run
	inputs, errs = expandDirs(imp, inputs)
	for _, path := range inputs {
		data, st, err := parsers.ReadLimitedStat(path, parsers.DefaultLimit)
		if err != nil {
			errs = append(errs, exitcode.With(exitcode.InvalidInput, fmt.Errorf("%s: %w", path, unwrapPath(err))))
			continue
		}
		in := Input{Name: path, Data: data, ModTime: st.ModTime().UTC()}
		rs, warnings, err := imp.Read(in, opts)
		s.Warnings = append(s.Warnings, warnings...)
		if err != nil {
			errs = append(errs, exitcode.With(exitcode.InvalidInput, err))
			continue
		}
		if len(rs) == 0 {
			errs = append(errs, exitcode.Errorf(exitcode.NoData, "%s: no %s result in it", path, format))
			continue
		}
		s.Inputs++
		read = append(read, in)
		runs = append(runs, rs...)
	}
	if len(runs) > 0 {
		numberRepeats(runs)
		if err := Write(resultsDir, expe, format, read, runs); err != nil {
			return s, errors.Join(append(errs, err)...)
		}
		s.Runs = len(runs)
		s.Dirs = append(s.Dirs, dir)
	}
	return s, errors.Join(errs...)
}

// expandDirs replaces the directories among inputs by the files below
// them, for an importer that takes directories; a directory with none is
// an error naming it (no data).
func expandDirs(imp Importer, inputs []string) ([]string, []error) {
	di, ok := imp.(DirImporter)
	if !ok {
		return inputs, nil
	}
	var out []string
	var errs []error
	for _, path := range inputs {
		if st, err := os.Stat(path); err != nil || !st.IsDir() {
			out = append(out, path)
			continue
		}
		files, err := di.Files(path)
		if err != nil {
			// A *fs.PathError: it names what could not be read.
			errs = append(errs, exitcode.With(exitcode.InvalidInput, err))
		} else if len(files) == 0 {
			errs = append(errs, exitcode.Errorf(exitcode.NoData, "%s: no %s result below it", path, imp.Format()))
		}
		out = append(out, files...)
	}
	return out, errs
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.=-]+`)

// expeName makes an experiment name from an input path: its base name
// without extension, made safe.
func expeName(path string) string {
	base := filepath.Base(path)
	if ext := filepath.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return slug(base)
}

// slug makes a directory-name part: unsafe runs become '_', at most 100
// bytes.
func slug(s string) string {
	s = strings.Trim(unsafeChars.ReplaceAllString(s, "_"), "_.")
	if len(s) > 100 {
		s = s[:100]
	}
	if s == "" {
		s = "run"
	}
	return s
}

// Write lays out runs in resultsDir/expe (which must not exist): the
// original inputs under original/, then one directory per run with
// exit_code written last in each. Every file is written through an
// os.Root of resultsDir: nothing lands outside it, whatever expe, an
// input's name or a symlink in the tree says.
func Write(resultsDir, expe, format string, inputs []Input, runs []Run) error {
	if err := os.MkdirAll(resultsDir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(resultsDir)
	if err != nil {
		return err
	}
	defer root.Close()
	dir := filepath.Join(resultsDir, expe)
	if err := root.Mkdir(expe, 0o755); errors.Is(err, fs.ErrExist) {
		return exitcode.Errorf(exitcode.InvalidInput, "%s: already exists: import into a new experiment (--expe) or remove it", dir)
	} else if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if err := root.Mkdir(filepath.Join(expe, "original"), 0o755); err != nil {
		return err
	}
	h := sha256.New()
	for i, in := range inputs {
		name := filepath.Base(in.Name)
		if i > 0 {
			name = fmt.Sprintf("%d_%s", i, name)
		}
		if err := atomicfile.WriteFileIn(root, filepath.Join(expe, "original", name), in.Data, 0o644); err != nil {
			return err
		}
		d := sha256.Sum256(in.Data)
		h.Write(d[:])
	}
	digest := h.Sum(nil)
	for i, r := range runs {
		name := slug(r.Slug)
		if rep, ok := r.Settings[RepeatSetting].(int); ok {
			name += fmt.Sprintf("_repeat=%d", rep)
		}
		rd := filepath.Join(expe, fmt.Sprintf("%03d__%s", i, name))
		if err := root.Mkdir(rd, 0o755); err != nil {
			return err
		}
		settings, err := yaml.Marshal(r.Settings)
		if err != nil {
			return fmt.Errorf("%s: settings: %w", rd, err)
		}
		files := map[string][]byte{"settings.yaml": settings}
		for name, data := range r.Files {
			files[name] = data
		}
		if !buildEmpty(r.Build) {
			b, err := json.MarshalIndent(completeBuild(*r.Build, digest), "", "  ")
			if err != nil {
				return err
			}
			files["build.json"] = append(b, '\n')
		}
		names := make([]string, 0, len(files))
		for n := range files {
			names = append(names, n)
		}
		sort.Strings(names)
		files[".uuid"] = []byte(runUUID(format, digest, i, names, files) + "\n")
		names = append(names, ".uuid")
		for _, n := range names {
			p := filepath.Join(rd, filepath.FromSlash(n))
			if err := root.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := atomicfile.WriteFileIn(root, p, files[n], 0o644); err != nil {
				return err
			}
		}
		if err := atomicfile.WriteFileIn(root, filepath.Join(rd, "exit_code"), fmt.Appendf(nil, "%d\n", r.ExitCode), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runUUID derives a run's id from its input, its position and everything
// written for it (settings, build.json, the times in its files), shaped as
// a UUID v4: importing the same file again with the same build and time
// gives the same ids (re-uploading replaces), another build, commit or
// time gives new ones (the store keeps both).
func runUUID(format string, digest []byte, i int, names []string, files map[string][]byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%x\x00%d", format, digest, i)
	for _, n := range names {
		fmt.Fprintf(h, "\x00%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	var id uuid.UUID
	copy(id[:], h.Sum(nil))
	id[6] = (id[6] & 0x0f) | 0x40
	id[8] = (id[8] & 0x3f) | 0x80
	return id.String()
}

// merge applies the build flags over what the input told.
func (o Options) merge(b *models.Build) *models.Build {
	out := models.Build{}
	if b != nil {
		out = *b
	}
	if o.Build.ID != "" {
		out.ID = o.Build.ID
	}
	if o.Build.Commit != "" {
		out.Commit = o.Build.Commit
	}
	if o.Build.Ref != "" {
		out.Ref = o.Build.Ref
	}
	if o.Build.CI != nil {
		out.CI = o.Build.CI
	}
	if !o.Build.Time.IsZero() {
		out.Time = o.Build.Time.UTC()
	}
	return &out
}

// start is when the runs of an input started: --time, else the build's
// time, else the input's modification time.
func (o Options) start(b *models.Build, in Input) time.Time {
	switch {
	case !o.Time.IsZero():
		return o.Time.UTC()
	case b != nil && !b.Time.IsZero():
		return b.Time.UTC()
	}
	return in.ModTime.UTC()
}

// jsonFile encodes a run's file; it fails on what JSON cannot hold (a
// time beyond year 9999), which the caller reports as a skipped run.
func jsonFile(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// maxRunSeconds bounds the duration an input may give a run: beyond it the
// number is not a duration (and the end would leave the calendar).
const maxRunSeconds = 1e7

// RepeatSetting tells repeated runs of one point apart (DESIGN §4).
const RepeatSetting = models.RepeatSetting

// numberRepeats gives the runs that share their settings @repeat 0, 1, ...
// in order; a point run once gets none.
func numberRepeats(runs []Run) {
	key := func(r Run) string {
		b, _ := yaml.Marshal(r.Settings)
		return string(b)
	}
	count := map[string]int{}
	for _, r := range runs {
		count[key(r)]++
	}
	seen := map[string]int{}
	for i := range runs {
		k := key(runs[i])
		if count[k] > 1 {
			runs[i].Settings[RepeatSetting] = seen[k]
			seen[k]++
		}
	}
}
