package main

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/examples/internal/demo"
)

func TestABA(t *testing.T) {
	demo.Check(t, popConcurrently, weft.AssertionFailed)
}
