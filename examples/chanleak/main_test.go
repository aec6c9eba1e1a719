package main

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/examples/internal/demo"
)

func TestLeak(t *testing.T) {
	demo.Check(t, query, weft.GoroutineLeak)
}
