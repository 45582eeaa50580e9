package config

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a config key holding a time.Duration written as Go writes
// one ("5s", "2m", "0"). It is decoded, and checked not to be negative,
// when the file is: a bad value is an error naming the file, line and key.
type Duration time.Duration

// UnmarshalYAML parses the scalar with time.ParseDuration. Its error is a
// *yaml.TypeError carrying the line, which Parse turns into
// "config file PATH:LINE: key KEY: invalid duration ...".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a duration (e.g. 5s, 2m), found %s", n.Line, kindName(n))}}
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: invalid duration %q (want e.g. 5s, 2m)", n.Line, n.Value)}}
	}
	*d = Duration(v)
	return nil
}
