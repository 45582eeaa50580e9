package pi

import (
	"encoding/json"
	"errors"

	"github.com/seshat-bench/seshat/store"
)

// Placeholder until the parser lands: see issue 2 item 6.

func (Workload) ParserVersion() string               { return "0" }
func (Workload) ArtifactDirnames() map[string]string { return nil }
func (Workload) ImportantFiles() []string            { return nil }
func (Workload) ParseOnce(*store.ParseContext) (any, error) {
	return nil, errors.New("pi parser not implemented")
}
func (Workload) DecodeCached(json.RawMessage) (any, error) {
	return nil, errors.New("pi parser not implemented")
}
func (Workload) ParseAlways(*store.AlwaysContext, any) error { return nil }
