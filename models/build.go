package models

import "time"

// Build says what was under test: the commit of the stack, the CI run that
// built it. It is a run directory's build.json (DESIGN §4), carried in the
// payload as metadata.build. One build may be run many times (repeats, a
// matrix): regression history makes one point of each build. A run without
// a build is its own build.
type Build struct {
	// ID names the build: runs sharing it are runs of one build.
	ID     string `json:"id" validate:"required"`
	Commit string `json:"commit,omitempty"`
	Ref    string `json:"ref,omitempty"`
	CI     *CI    `json:"ci,omitempty"`
	// Time is when the build was made (its commit's or its CI run's time).
	Time time.Time `json:"time,omitzero,omitempty"`
}

// CI names the continuous integration run that made a build.
type CI struct {
	// Engine is the CI system: github, gitlab, jenkins, tekton...
	Engine string `json:"engine,omitempty"`
	RunID  string `json:"run_id,omitempty"`
	URL    string `json:"url,omitempty" validate:"omitempty,url"`
}

// DerivedID is the id of a build that names none (a build.json written by
// another tool, or by hand): "<engine>-<run id>" when a CI run made it
// ("ci-<run id>" when the engine is not named), else its commit, else ""
// (nothing to name it by). seshat run writes the id itself, by the same
// rule with more to go on (runner.DetectBuild).
func (b Build) DerivedID() string {
	if b.CI != nil && b.CI.RunID != "" {
		engine := b.CI.Engine
		if engine == "" {
			engine = "ci"
		}
		return engine + "-" + b.CI.RunID
	}
	return b.Commit
}
