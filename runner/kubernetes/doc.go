// Package kubernetes is the kubernetes executor of `seshat run` (DESIGN
// §14): every matrix point becomes a Kubernetes Job, created with client-go,
// and its run directory comes back through the pod's log, so no shared
// filesystem is needed.
//
// Data flow: runner.PrepareRun writes settings.yaml, .uuid, config.yaml and
// build.json locally; their archive rides in the Job's command (`seshat run-point
// --prelude`), the pod unpacks it, runs the point there (hwinfo.json and
// usage.json describe the node) and prints the complete run directory as an
// armoured base64 tar.gz on stdout (`--archive`). The executor polls the
// invocation's Jobs and pods (one label selector), reads a finished pod's
// log, unpacks the archive into the local run directory with exit_code
// last, and deletes the Job (propagation Background: its pods go too).
// Pods that fail, are evicted, are OOM-killed, never start (image pulls) or
// pass the Job's deadline become failed runs with the reason in
// scheduler.json. Cancellation and --stop-on-error delete every Job of the
// invocation and leave unfinished runs without exit_code.
//
// Why the log: it is the one way out of a pod that every API server serves
// to a plain client (pods/log), needs no volume, no object store and no
// streaming upgrade (exec/attach need SPDY or WebSocket through every proxy
// on the way), and it can be read after the container has exited. Its cost:
// the kubelet keeps container logs up to a size (containerLogMaxSize,
// default 10 MiB), which bounds a run directory's compressed size; a cut
// archive is detected (no END line, bad checksum) and the run is failed
// with that reason.
package kubernetes
