package scripts

import (
	_ "embed"
	"fmt"
)

var (
	//go:embed driver.py
	driver string
	//go:embed numpy_pi.py
	numpyPI string
	//go:embed torch_pi.py
	torchPI string
	//go:embed import_pi.py
	importPI string
)

// Benchmark returns the program that runs matmul and conv PIs on backend
// ("numpy" or "torch").
func Benchmark(backend string) (string, error) {
	var b string
	switch backend {
	case "numpy":
		b = numpyPI
	case "torch":
		b = torchPI
	default:
		return "", fmt.Errorf("no Python program for backend %q", backend)
	}
	return driver + "\n" + b + "\nmain(setup)\n", nil
}

// Import returns the program that times the import of the module named by
// its first argument.
func Import() string { return importPI }

// Module is the Python module a backend imports.
func Module(backend string) string {
	if backend == "torch" {
		return "torch"
	}
	return backend
}
