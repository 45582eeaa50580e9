package lts

import (
	"fmt"
	"io"
	"log/slog"
)

// Secret is a credential. However it is printed — fmt with any verb, JSON,
// text, slog — it shows as <secret>; only Reveal gives the value, for the one
// place that sends it.
type Secret string

const secretShown = "<secret>"

// Reveal returns the value, to put it in a request.
func (s Secret) Reveal() string { return string(s) }

// String hides the value.
func (Secret) String() string { return secretShown }

// GoString hides the value from %#v.
func (Secret) GoString() string { return secretShown }

// Format hides the value from every fmt verb (%d or %x included, which
// would otherwise print the underlying string).
func (Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, secretShown) }

// MarshalJSON hides the value from encoding/json.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + secretShown + `"`), nil }

// MarshalText hides the value from text encoders (YAML, slog's handlers).
func (Secret) MarshalText() ([]byte, error) { return []byte(secretShown), nil }

// LogValue hides the value from slog.
func (Secret) LogValue() slog.Value { return slog.StringValue(secretShown) }
