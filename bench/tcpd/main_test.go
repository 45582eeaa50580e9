package main

import (
	"slices"
	"testing"
)

func TestFill(t *testing.T) {
	one, three := 1.0, 3.0
	got, filled, err := fill([]*float64{nil, &one, nil, &three})
	if err != nil || filled != 2 || !slices.Equal(got, []float64{1, 1, 1, 3}) {
		t.Errorf("fill = %v, %d, %v; want [1 1 1 3], 2, nil", got, filled, err)
	}
	if _, _, err := fill([]*float64{nil}); err == nil {
		t.Error("fill of no values: no error")
	}
}
