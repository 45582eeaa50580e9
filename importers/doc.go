// Package importers turns results other tools already write into artifact
// directories, so that the whole pipeline (parse, KPIs, upload, regression,
// visualize, compare) applies to them: `seshat import FORMAT INPUT...`.
//
// Data flows in two steps. An Importer reads its inputs (one file per
// format: gobench.go, googlebench.go, pytest.go, hyperfine.go,
// criterion.go, asv.go, jmh.go, mlperf.go, thoth.go; an importer that is
// also a DirImporter takes directories, as criterion takes
// target/criterion) into Runs: one
// per configuration and repetition, each with its settings, the files its
// run directory holds, its build when the input tells it, and its exit
// code. Write then lays them out as seshat run does:
// <results>/<expe>/<NNN>__<slug>/ with settings.yaml, the files, build.json
// (named as seshat run names a build: the CI run, else the commit, else,
// when only a ref or a time is known, the import), .uuid (derived from the
// input, so importing the same file again gives the same ids and
// re-uploading changes nothing) and exit_code last, and keeps each original
// input under <results>/<expe>/original/.
//
// The JSON formats are read row by row (jsonwalk.go), so that a malformed
// row is a warning naming its line and field and the other rows are
// imported. The runs of every format but Thoth are read by workloads
// declared in files embedded here (workloads/*.yaml), registered at init:
// the importers prove the file workload engine of package declared. Thoth
// and Amun results become runs of the built-in pi workload, whose pi.json
// is a superset of Thoth's output.
package importers
