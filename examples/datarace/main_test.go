package main

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/examples/internal/demo"
)

func TestDataRace(t *testing.T) {
	demo.Check(t, publish, weft.DataRace)
}
