// Package demo runs the examples' checks: as commands (Main) and as tests
// (Check).
//
// An example demonstrates a bug, so its check fails. With WEFT_EXAMPLES=1
// the test runs it with weft.Check and fails with the report, as a user's
// test would:
//
//	WEFT_EXAMPLES=1 go run ./cmd/weft test ./examples/lostupdate
//
// Without it (weft's own go test ./...) the test passes when the
// exploration finds the bug the example is about.
package demo

import (
	"fmt"
	"os"
	"testing"

	"weft.dev/weft"
)

// Check checks body, which has a bug of kind want.
func Check(t *testing.T, body func(), want weft.BugKind, opts ...weft.Option) {
	t.Helper()
	if os.Getenv("WEFT_EXAMPLES") != "" {
		weft.Check(t, body, opts...)
		return
	}
	res, err := weft.Explore(body, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) == 0 || res.Bugs[0].Kind != want {
		t.Fatalf("want a %v, found %v", want, res.Bugs)
	}
}

// Main explores body with opts, prints what it found, and exits: 1 when it
// found a bug, 2 when the exploration could not run, 0 otherwise.
func Main(body func(), opts ...weft.Option) {
	res, err := weft.Explore(body, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("weft explored %d executions (%d complete, %d blocked) with %s in %v\n\n",
		res.Executions, res.Complete, res.Blocked, res.Engine, res.Elapsed)
	for _, b := range res.Bugs {
		fmt.Println(b)
	}
	if len(res.Bugs) > 0 {
		os.Exit(1)
	}
	fmt.Println("no bug found")
}
