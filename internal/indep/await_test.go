package indep_test

import (
	"testing"

	"weft.dev/weft/internal/progtest"
)

// TestAwaitBeforeWrite checks the race of a write with an earlier wait of
// weft.Yield. In sdpor's first execution g1 waits in its spin loop before
// g2 stores: the store must race with the wait, whose reversal ends the
// loop and leads g1 to its receive, a deadlock; sdpor found races of
// the waits with the writes before them only, and missed it.
func TestAwaitBeforeWrite(t *testing.T) {
	p, err := progtest.Parse(`
locs: 1
g1: [await 0 0] [recv 0 0]
g2: [lock 0] [store 0 2] [unlock 0]
`)
	if err != nil {
		t.Fatal(err)
	}
	var s stats
	if !compare(t, p, 0, &s) {
		t.Fatalf("dfs did not explore every execution of\n%s", p)
	}
}

// TestAwaits compares the engines on programs with spin loops.
func TestAwaits(t *testing.T) {
	differential(t, 37, 60, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 3}, Locs: 2, LockedRatio: 0.2,
		Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Await}}, 7)
}
