package explorer

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// uuidFile is the file of a run directory that holds its test_uuid
// (docs/artifacts.md).
const uuidFile = ".uuid"

// findRunDirs maps the test_uuid of every run directory under dirs to the
// directory. Directories whose names start with "." are not walked, as the
// parser walks none. A results directory that cannot be read is an error
// naming it; a .uuid that does not hold a UUID is skipped.
func findRunDirs(dirs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if d.Name() != uuidFile || !d.Type().IsRegular() {
				return nil
			}
			if id, ok := readUUID(path); ok {
				out[id] = filepath.Dir(path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("--results-dir %s: %w", dir, err)
		}
	}
	return out, nil
}

// readUUID reads a .uuid file: a UUID, in canonical (lower-case) form.
func readUUID(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 128))
	if err != nil {
		return "", false
	}
	id, err := uuid.Parse(strings.TrimSpace(string(data)))
	if err != nil {
		return "", false
	}
	return id.String(), true
}

// runFiles serves the files of a run directory, and nothing outside it:
// the directory is opened as an os.Root, which refuses paths and symbolic
// links leading out of it.
func (s *Server) runFiles(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("uuid")
	dir, ok := s.runDirs[id]
	if !ok {
		s.page(func(*http.Request) (string, any, error) {
			return "", nil, notFound("no run directory for run %q under --results-dir", id)
		})(w, r)
		return
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		s.page(func(*http.Request) (string, any, error) {
			return "", nil, notFound("run directory of %s: %v", id, err)
		})(w, r)
		return
	}
	defer root.Close()
	// The files are the run's own (logs, JSON, YAML): shown, never run.
	w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'")
	http.StripPrefix("/runs/"+id, http.FileServerFS(root.FS())).ServeHTTP(w, r)
}
