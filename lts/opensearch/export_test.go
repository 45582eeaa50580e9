package opensearch

import "github.com/seshat-bench/seshat/lts"

// SetVerdictWindow makes the verdict searches of an OpenSearch store ask
// for n verdicts at most, so that a test pages through a few.
func SetVerdictWindow(s lts.Store, n int) { s.(*store).verdictWindow = n }
