package config

import (
	"net"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/spf13/cobra"
)

// Variable is an environment variable that mirrors no flag of its own.
type Variable struct{ Name, Meaning string }

// Variables that mirror no flag, all read here (Resolve) and nowhere else:
// no package below cmd reads the environment.
const (
	EnvConfig             = "SESHAT_CONFIG"
	EnvIgnoreCache        = "SESHAT_IGNORE_CACHE"
	EnvResultsBaseURL     = "SESHAT_RESULTS_BASE_URL"
	EnvOpenSearchUsername = "SESHAT_OPENSEARCH_USERNAME"
	EnvOpenSearchPassword = "SESHAT_OPENSEARCH_PASSWORD"
	// The Kubernetes executor finds its cluster as kubectl does.
	EnvKubeconfig  = "KUBECONFIG"
	EnvHome        = "HOME"
	EnvServiceHost = "KUBERNETES_SERVICE_HOST"
	EnvServicePort = "KUBERNETES_SERVICE_PORT"
)

// Variables lists them, for the command reference.
var Variables = []Variable{
	{EnvConfig, "the config file, as `--config`"},
	{EnvIgnoreCache, "`1` ignores every parse cache, as `--no-cache`"},
	{EnvResultsBaseURL, "where the results directory is published (CI artifacts): payloads' `metadata.urls` point below it, written without its user and password"},
	{EnvOpenSearchUsername, "user name for OpenSearch (basic authentication), over the user of the store URL; never printed"},
	{EnvOpenSearchPassword, "its password, unless `--password-file` names a file holding it; over the password of the store URL; never printed"},
	{EnvKubeconfig, "the kubeconfig files of `--executor kubernetes` (a list, as kubectl reads it) when `executor.kubernetes.kubeconfig` is not set; without either, `~/.kube/config`"},
	{EnvHome, "what `~/` means in `executor.kubernetes.kubeconfig` and in `~/.kube/config`"},
	{EnvServiceHost, "with `" + EnvServicePort + "`, set in a pod: the API server `--executor kubernetes` reaches with the pod's service account when no kubeconfig file exists"},
}

// Settings are what configures a command besides its flags: the config file
// read and the variables that mirror no flag.
type Settings struct {
	// File is the config file; nil for a command that reads none.
	File *Loaded
	// ResultsBaseURL is SESHAT_RESULTS_BASE_URL.
	ResultsBaseURL string
	// OpenSearchUsername and OpenSearchPassword are the OpenSearch
	// credentials of the environment.
	OpenSearchUsername, OpenSearchPassword string
	// Cluster is where `--executor kubernetes` finds its API server.
	Cluster Cluster
}

// Cluster is where the Kubernetes executor finds its API server, resolved
// as kubectl does: executor.kubernetes.kubeconfig, else the KUBECONFIG
// list, else ~/.kube/config; in a pod without any of them, the pod's
// service account.
type Cluster struct {
	// Kubeconfig is the file the config file names, `~/` expanded: it
	// must exist.
	Kubeconfig string
	// Search lists the kubeconfig files merged when Kubeconfig is "",
	// first wins; missing ones are skipped.
	Search []string
	// InCluster is https://host:port of the API server of the pod seshat
	// runs in ("" outside a pod).
	InCluster string
}

// resolveCluster is Cluster from the config file's kubeconfig and the
// environment.
func resolveCluster(kubeconfig string, read func(string) string) Cluster {
	var c Cluster
	home := read(EnvHome)
	switch list := read(EnvKubeconfig); {
	case kubeconfig != "":
		c.Kubeconfig = kubeconfig
		if home != "" && (kubeconfig == "~" || strings.HasPrefix(kubeconfig, "~/")) {
			c.Kubeconfig = filepath.Join(home, kubeconfig[1:])
		}
	case list != "":
		for _, p := range filepath.SplitList(list) {
			if p != "" {
				c.Search = append(c.Search, p)
			}
		}
	case home != "":
		c.Search = []string{filepath.Join(home, ".kube", "config")}
	}
	if host, port := read(EnvServiceHost), read(EnvServicePort); host != "" && port != "" {
		c.InCluster = "https://" + net.JoinHostPort(host, port)
	}
	return c
}

// Resolve settles every setting of cmd, the command about to run, in the
// one order seshat knows, lowest first:
//
//  1. defaults: each flag's own, and for the regression keys a flag leaves
//     unset, the workload's (regression.Keys.Or applies them last, as only
//     the analysis knows the workloads of its runs);
//  2. the config file: --config, else SESHAT_CONFIG, else seshat.yaml when
//     present (read only when readsConfig, or when named explicitly);
//  3. the environment: SESHAT_<FLAG> and the aliases of BindEnv;
//  4. the command line.
//
// Flags that fall back on another setting (BindFallback) take it only when
// nothing above set them. Resolve also reads the variables that mirror no
// flag (Variables): every read of the environment is here.
func Resolve(cmd *cobra.Command, getenv func(string) (string, bool), readsConfig bool) (*Settings, error) {
	s := &Settings{}
	path, explicit := DefaultFile, false
	if f := cmd.Flags().Lookup("config"); f != nil && f.Changed {
		path, explicit = f.Value.String(), true
	} else if v, ok := getenv(EnvConfig); ok && v != "" {
		path, explicit = v, true
	}
	if readsConfig || explicit {
		var err error
		if s.File, err = Load(path, explicit); err != nil {
			return nil, err
		}
	}
	if err := Apply(cmd, getenv, s.File); err != nil {
		return nil, err
	}
	read := func(name string) string { v, _ := getenv(name); return v }
	s.ResultsBaseURL = read(EnvResultsBaseURL)
	s.OpenSearchUsername = read(EnvOpenSearchUsername)
	s.OpenSearchPassword = read(EnvOpenSearchPassword)
	var kubeconfig string
	if s.File != nil {
		kubeconfig = s.File.File.Executor.Kubernetes.Kubeconfig
	}
	s.Cluster = resolveCluster(kubeconfig, read)
	return s, nil
}

// UnboundKeys are the config keys no flag mirrors: read from File by the
// command that needs them. An entry names a key or a section, every key
// under it included.
var UnboundKeys = []string{
	// Disabling the analysis is a decision of the repository's config,
	// not of one command line.
	"regression_analyses.enabled",
	// A cluster's site settings (partition, account, image, tolerations...)
	// belong in the repository's config, not in a flag each.
	"executor.slurm",
	"executor.kubernetes",
}

// IsUnbound tells whether a key is one of UnboundKeys or under one.
func IsUnbound(key string) bool {
	for _, u := range UnboundKeys {
		if key == u || strings.HasPrefix(key, u+".") {
			return true
		}
	}
	return false
}

// Key is a leaf key of the config file.
type Key struct {
	// Name is the dotted path ("lts.opensearch.url"); Type says what it
	// holds for people ("string", "list of string", "boolean"...).
	Name, Type string
}

// Keys lists the leaf keys of File by their yaml tags, inlined structs
// included, in declaration order.
func Keys() []Key { return keysOf(reflect.TypeFor[File](), "") }

func keysOf(t reflect.Type, prefix string) []Key {
	var out []Key
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if opts == "inline" {
			out = append(out, keysOf(ft, prefix)...)
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		key := prefix + name
		switch {
		case ft == reflect.TypeFor[Duration]():
			out = append(out, Key{key, "duration"})
		case ft.Kind() == reflect.Struct:
			out = append(out, keysOf(ft, key+".")...)
		case ft.Kind() == reflect.Slice:
			out = append(out, Key{key, "list of " + typeName(ft.Elem().Kind())})
		default:
			out = append(out, Key{key, typeName(ft.Kind())})
		}
	}
	return out
}

func typeName(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Float64:
		return "number"
	default:
		return k.String()
	}
}
