package models

import "testing"

func TestBuildDerivedID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build Build
		want  string
	}{
		{"CI run", Build{Commit: "0123abc", CI: &CI{Engine: "gitlab", RunID: "777"}}, "gitlab-777"},
		{"CI run of an unnamed engine", Build{CI: &CI{RunID: "9"}}, "ci-9"},
		{"CI without a run: the commit", Build{Commit: "0123abc", CI: &CI{Engine: "github"}}, "0123abc"},
		{"commit", Build{Commit: "0123abc", Ref: "main"}, "0123abc"},
		{"nothing to go on", Build{Ref: "main"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.build.DerivedID(); got != tt.want {
				t.Errorf("DerivedID() = %q, want %q", got, tt.want)
			}
		})
	}
}
