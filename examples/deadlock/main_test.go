package main

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/examples/internal/demo"
)

func TestDeadlock(t *testing.T) {
	demo.Check(t, transferBothWays, weft.Deadlock)
}
