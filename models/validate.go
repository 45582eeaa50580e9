package models

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
)

// FieldError is one invalid field, named by its JSON path
// (metadata.test_uuid, kpis.rate_gflops.value).
type FieldError struct {
	Path string
	Msg  string
}

func (e FieldError) Error() string { return e.Path + ": " + e.Msg }

// ValidationError lists every invalid field of a document, in the order the
// validator met them (struct field order, map keys sorted).
type ValidationError struct {
	Fields []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Error()
	}
	return strings.Join(parts, "; ")
}

// Add appends a field error (for checks the struct tags cannot express).
func (e *ValidationError) Add(path, format string, args ...any) {
	e.Fields = append(e.Fields, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// Err returns e, or nil when it holds no field error.
func (e *ValidationError) Err() error {
	if e == nil || len(e.Fields) == 0 {
		return nil
	}
	return e
}

var (
	// snakeCase names KPIs and labels: they become OpenMetrics metric and
	// label names and OpenSearch fields, so the legacy Prometheus charset.
	snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
)

// IsSnakeCase reports whether s is a valid KPI or label name.
func IsSnakeCase(s string) bool { return snakeCase.MatchString(s) }

// SnakeCasePattern is the regular expression names are checked against, for
// the JSON Schema.
const SnakeCasePattern = `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`

// The validator caches struct metadata; one instance serves every call.
var theValidator = sync.OnceValue(func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		if name == "" {
			return f.Name
		}
		return name
	})
	name := func(fl validator.FieldLevel) bool { return snakeCase.MatchString(fl.Field().String()) }
	mustRegister(v, "kpi_name", name)
	mustRegister(v, "label_name", name)
	mustRegister(v, "snake_case", name)
	mustRegister(v, "finite", func(fl validator.FieldLevel) bool {
		f := fl.Field()
		switch f.Kind() {
		case reflect.Float32, reflect.Float64:
			return !math.IsNaN(f.Float()) && !math.IsInf(f.Float(), 0)
		}
		return true
	})
	return v
})

func mustRegister(v *validator.Validate, tag string, fn validator.Func) {
	if err := v.RegisterValidation(tag, fn); err != nil {
		panic(err)
	}
}

// Validate checks a document (a struct or a pointer to one) against its
// `validate` tags and returns a *ValidationError naming every bad field by
// its JSON path, or nil.
func Validate(doc any) error {
	err := theValidator().Struct(doc)
	if err == nil {
		return nil
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		return err // not a struct: a programming error
	}
	out := &ValidationError{}
	for _, fe := range ves {
		out.Fields = append(out.Fields, FieldError{Path: jsonPath(fe.Namespace()), Msg: message(fe)})
	}
	return out
}

// ValidateValue checks one value against validator tags (e.g. "semver") and
// returns a *ValidationError naming path, or nil.
func ValidateValue(path string, value any, tags string) error {
	err := theValidator().Var(value, tags)
	if err == nil {
		return nil
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		return err
	}
	out := &ValidationError{}
	for _, fe := range ves {
		out.Fields = append(out.Fields, FieldError{Path: path, Msg: message(fe)})
	}
	return out
}

// jsonPath turns the validator's namespace (Payload.kpis[rate].value) into a
// JSON path (kpis.rate.value): the root type's name goes, map keys become
// path elements.
func jsonPath(ns string) string {
	if _, rest, ok := strings.Cut(ns, "."); ok {
		ns = rest
	} else if i := strings.IndexByte(ns, '['); i >= 0 {
		ns = ns[i:]
	}
	ns = strings.NewReplacer("[", ".", "]", "").Replace(ns)
	return strings.TrimPrefix(ns, ".")
}

// message says what is wrong in words a user acts on; the bad value is shown
// (shortened) where it helps.
func message(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "required"
	case "uuid4":
		return "must be a UUID v4, got " + shown(fe.Value())
	case "semver":
		return "must be a semantic version (MAJOR.MINOR.PATCH), got " + shown(fe.Value())
	case "oneof":
		return fmt.Sprintf("must be one of [%s], got %s", fe.Param(), shown(fe.Value()))
	case "gtefield":
		return "must not be before " + strings.ToLower(fe.Param())
	case "kpi_name":
		return "KPI name " + shown(fe.Value()) + " is not snake_case"
	case "label_name":
		return "name " + shown(fe.Value()) + " is not snake_case"
	case "snake_case":
		return "must be snake_case, got " + shown(fe.Value())
	case "finite":
		return fmt.Sprintf("must be a finite number, got %v", fe.Value())
	case "url":
		return "must be a URL, got " + shown(fe.Value())
	}
	if fe.Param() != "" {
		return fmt.Sprintf("fails %s=%s (got %s)", fe.Tag(), fe.Param(), shown(fe.Value()))
	}
	return fmt.Sprintf("fails %s (got %s)", fe.Tag(), shown(fe.Value()))
}

func shown(v any) string {
	s := fmt.Sprint(v)
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return fmt.Sprintf("%q", s)
}
