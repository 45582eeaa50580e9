// Package config reads seshat.yaml and applies the precedence of settings in
// one place (Apply): config file < SESHAT_<FLAG> environment variables <
// command-line flags. Flags name the config key they mirror with an
// annotation (BindKey); every flag has its environment variable.
//
// The file is decoded strictly: an unknown key, a value of the wrong type or
// malformed YAML is an InvalidInput error naming the file, the line and the
// dotted key ("config file seshat.yaml:3: unknown key parse.filterz").
// Fixtures for good and bad files live in testdata/, each bad one with the
// exact error it gives.
package config
