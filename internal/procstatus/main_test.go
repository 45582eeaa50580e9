package procstatus

import (
	"testing"

	"github.com/seshat-bench/seshat/internal/fuzzing"
)

func TestMain(m *testing.M) { fuzzing.Main(m) }
