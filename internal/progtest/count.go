package progtest

import (
	"os"
	"strconv"
	"testing"
)

// Programs returns how many random programs a differential test compares:
// n, or the number that the environment variable WEFT_TRACE_PROGRAMS
// gives, for longer runs than CI's.
func Programs(t testing.TB, n int) int {
	v := os.Getenv("WEFT_TRACE_PROGRAMS")
	if v == "" {
		return n
	}
	m, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("WEFT_TRACE_PROGRAMS: %v", err)
	}
	return m
}
