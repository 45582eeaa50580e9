package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
)

// TestConfigKeysAreFileFields ties the flags to the config file type: every
// key a flag reads (its own or as a fallback) is a field of config.File, and
// every field of config.File is read by some flag or listed in
// config.UnboundKeys, so that a key is never accepted by the file and
// silently ignored, nor bound to a key the file refuses.
func TestConfigKeysAreFileFields(t *testing.T) {
	t.Parallel()
	var fields []string
	for _, k := range config.Keys() {
		fields = append(fields, k.Name)
	}
	root := newDocRoot()
	read := map[string]bool{}
	check := func(where string, f *pflag.Flag) {
		for _, key := range config.ReadKeys(f) {
			if !slices.Contains(fields, key) {
				t.Errorf("%s --%s reads config key %s, which config.File has no field for", where, f.Name, key)
			}
			read[key] = true
		}
	}
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) { check("seshat", f) })
	for _, c := range visibleCommands(root) {
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) { check(c.CommandPath(), f) })
	}
	for _, key := range fields {
		unbound := config.IsUnbound(key)
		switch {
		case !read[key] && !unbound:
			t.Errorf("config key %s is read by no flag and not listed in config.UnboundKeys", key)
		case read[key] && unbound:
			t.Errorf("config key %s is listed in config.UnboundKeys but read by a flag", key)
		}
	}
	for _, key := range config.UnboundKeys {
		if !slices.ContainsFunc(fields, func(f string) bool { return f == key || strings.HasPrefix(f, key+".") }) {
			t.Errorf("config.UnboundKeys lists %s, which config.File has no field for", key)
		}
	}
}
