package redact

import "strings"

// secretWords mark a SESHAT_ variable that holds a secret by its name.
var secretWords = []string{"PASSWORD", "TOKEN", "SECRET", "CREDENTIAL"}

// Environ is env (os.Environ's form) as a child process of seshat gets it
// (a PI, an exec command, git, sbatch and so the Slurm tasks): seshat's
// own variables, SESHAT_*, without their secrets.
//
//   - A SESHAT_ variable whose name holds PASSWORD, TOKEN, SECRET or
//     CREDENTIAL (SESHAT_OPENSEARCH_PASSWORD) is dropped.
//   - Any other SESHAT_ variable keeps its value, the user information of
//     a URL removed (SESHAT_STORE=https://user:pw@host:9200 is passed as
//     https://host:9200); one whose URL cannot be cleaned (StripUserinfo)
//     is dropped.
//
// The rest of the environment belongs to the PI (a proxy's credentials, a
// registry's token) and passes unchanged. A run's settings are added to
// the result afterwards as SESHAT_<KEY>, whatever their names: they are
// the benchmark's.
func Environ(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "SESHAT_") {
			out = append(out, kv)
			continue
		}
		if holdsSecret(name) {
			continue
		}
		if afterScheme(value) > 0 {
			clean, err := StripUserinfo(value)
			if err != nil {
				continue
			}
			kv = name + "=" + clean
		}
		out = append(out, kv)
	}
	return out
}

func holdsSecret(name string) bool {
	upper := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}
