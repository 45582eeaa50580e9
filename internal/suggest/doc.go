// Package suggest finds, for a name a person mistyped (a setting, a flag, a
// config key), the known name they most likely meant, for the "did you
// mean" of an error message. One rule for every such message: the optimal
// string alignment distance (a swap of two letters counts as one edit),
// within a third of the name's length and at least two edits.
package suggest
