package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// envReaders are the functions that read the process environment, by
// import path. The user's directories count: os.UserHomeDir and friends
// read HOME and XDG_*; so do client-go's default kubeconfig rules
// (KUBECONFIG, HOME) and its in-cluster config (KUBERNETES_SERVICE_*).
var envReaders = map[string][]string{
	"os":                               {"Getenv", "LookupEnv", "Environ", "ExpandEnv", "UserHomeDir", "UserCacheDir", "UserConfigDir"},
	"syscall":                          {"Getenv", "Environ"},
	"k8s.io/client-go/tools/clientcmd": {"NewDefaultClientConfigLoadingRules", "BuildConfigFromFlags", "NewNonInteractiveDeferredLoadingClientConfig"},
	"k8s.io/client-go/rest":            {"InClusterConfig"},
}

// envAllowed are the files outside cmd/ that may read the environment,
// each with its reason. Their packages serve tests only: the test below
// fails if a non-test file imports one.
var envAllowed = map[string]string{
	"internal/browsertest/browsertest.go": "test helper: SESHAT_BROWSERTEST_KEEP keeps the screenshots of a test run",
	"internal/slurmtest/slurmtest.go":     "test helper: the test cluster's commands get this environment plus SLURM_CONF",
}

// TestNoEnvironmentBelowCmd enforces the rule of cmd/seshat/internal/config:
// only package main of cmd/seshat reads the process environment and passes
// it down as data. It parses every non-test .go file of the module outside
// cmd/, and those of the packages below cmd/seshat/internal, and fails on
// any reference to an environment reader (a call, or the function as a
// value).
func TestNoEnvironmentBelowCmd(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	allowedPkgs := map[string]bool{}
	for file := range envAllowed {
		if _, err := os.Stat(filepath.Join(root, file)); err != nil {
			t.Errorf("allow-list entry %s: %v (remove it)", file, err)
		}
		allowedPkgs["github.com/seshat-bench/seshat/"+filepath.Dir(file)] = true
	}
	var found []string
	files := 0
	err := filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, file)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if (underCmd(rel) && rel != "cmd" && rel != "cmd/seshat" && !belowMain(rel)) ||
				name == "testdata" || name == "vendor" || (rel != "." && (name[0] == '.' || name[0] == '_')) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || (underCmd(rel) && !belowMain(rel)) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); allowedPkgs[p] {
				t.Errorf("%s imports %s, a test helper allowed to read the environment", rel, p)
			}
		}
		if envAllowed[rel] != "" {
			return nil
		}
		for _, r := range envReads(f) {
			found = append(found, rel+": "+r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d files parsed under %s: is it the module?", files, root)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s: only cmd/seshat reads the environment; take the value as data (pipeline.Env.Environ, config.Settings)", f)
	}
}

// underCmd says whether the slash path rel (from the module root) is cmd/
// or below it.
func underCmd(rel string) bool { return rel == "cmd" || strings.HasPrefix(rel, "cmd/") }

// belowMain says whether rel is in a package below cmd/seshat/internal,
// which the library rules bind as any package outside cmd/.
func belowMain(rel string) bool {
	return rel == "cmd/seshat/internal" || strings.HasPrefix(rel, "cmd/seshat/internal/")
}

// envReads lists the environment readers f refers to, by the names its
// imports give the packages.
func envReads(f *ast.File) []string {
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := envReaders[p]; !ok {
			continue
		}
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || names[x.Name] == "" {
			return true
		}
		for _, fn := range envReaders[names[x.Name]] {
			if sel.Sel.Name == fn {
				out = append(out, names[x.Name]+"."+fn)
			}
		}
		return true
	})
	return out
}

// moduleRoot is the directory of the module's go.mod, above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// TestEnvReads checks the detector on the forms it must see.
func TestEnvReads(t *testing.T) {
	t.Parallel()
	src := `package p
import (
	"os"
	sys "syscall"
	"k8s.io/client-go/tools/clientcmd"
)
var get = os.Getenv
func f() {
	_, _ = os.LookupEnv("A")
	_ = os.Environ()
	_, _ = sys.Getenv("B")
	_, _ = os.UserHomeDir()
	_ = os.Args
	_ = clientcmd.NewDefaultClientConfigLoadingRules()
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(envReads(f), " ")
	if want := "os.Getenv os.LookupEnv os.Environ syscall.Getenv os.UserHomeDir k8s.io/client-go/tools/clientcmd.NewDefaultClientConfigLoadingRules"; got != want {
		t.Errorf("found %q, want %q", got, want)
	}
}
