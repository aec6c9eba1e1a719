package main

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/examples/internal/demo"
)

func TestLostUpdate(t *testing.T) {
	demo.Check(t, incrementTwice, weft.AssertionFailed)
}
