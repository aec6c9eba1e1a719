package weft_test

import (
	"testing"

	"weft.dev/weft"
)

// limit is a semaphore made at package initialization, as a package
// variable of rewritten code is (x/tools' go/buildutil).
var limit = weft.MakeChan[bool](1)

// TestChanMadeOutside checks that a channel made outside any check is made
// again, empty, by each execution that uses it, and that the goroutines
// that first use it at once share one.
func TestChanMadeOutside(t *testing.T) {
	for _, eng := range []string{"condpor", "dfs", "sdpor"} {
		res := explore(t, func() {
			done := weft.MakeChan[bool](0)
			for range 2 {
				weft.Go(func() {
					limit.Send(true)
					limit.Recv()
					done.Send(true)
				})
			}
			done.Recv()
			done.Recv()
			weft.Assert(limit.Len() == 0 && limit.Cap() == 1, "len %d, cap %d", limit.Len(), limit.Cap())
		}, weft.WithEngine(eng))
		if len(res.Bugs) > 0 || res.Complete < 2 || !res.Exhaustive {
			t.Fatalf("%s: %d complete, bugs %v", eng, res.Complete, res.Bugs)
		}
	}
	// A full buffer is one execution's: the next starts with it empty.
	res := explore(t, func() { limit.Send(true) })
	if len(res.Bugs) > 0 || res.Complete != 1 {
		t.Fatalf("%d complete, bugs %v", res.Complete, res.Bugs)
	}
	res = explore(t, func() { limit.Send(true) })
	if len(res.Bugs) > 0 {
		t.Fatalf("the second check: bugs %v", res.Bugs)
	}
}
