package main

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/examples/internal/demo"
)

func TestLazyInit(t *testing.T) {
	demo.Check(t, getTwice, weft.AssertionFailed, weft.WithAllBugs())
}
