// Command seshat runs performance-indicator benchmarks and post-processes
// their results. See README.md and docs/.
package main

import "os"

func main() { os.Exit(execute(osProcess())) }
