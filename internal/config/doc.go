// Package config reads seshat.yaml and applies the precedence of settings in
// one place: config file < SESHAT_<FLAG> environment variables < command-line
// flags. Flags name the config key they mirror with an annotation (BindKey).
package config
