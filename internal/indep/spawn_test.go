package indep_test

import (
	"testing"

	"weft.dev/weft/internal/progtest"
)

// TestLaterSpawn checks races with events from before the spawn of the
// racing goroutine. In sdpor's first execution of each program g1 runs
// first, then the goroutine that g2 starts stores or waits at its Lock:
// the reversal starts with g2's spawn. sdpor took that goroutine for one
// that already waited there and could not move, and missed the other
// order (for the locks, the only trace that completes).
func TestLaterSpawn(t *testing.T) {
	for _, text := range []string{`
locs: 1
g1: [store 0 1]
g2: [go] [store 0 2]
`, `
locs: 1
g1: [lock 0]
g2: [go] [lock 0] [unlock 0]
`} {
		p, err := progtest.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var s stats
		if !compare(t, p, 0, &s) {
			t.Fatalf("dfs did not explore every execution of\n%s", p)
		}
	}
}

// TestSpawns compares the engines on programs whose goroutines start
// others midway, so that a goroutine can race with events from before its
// spawn.
func TestSpawns(t *testing.T) {
	differential(t, 31, 60, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{2, 4}, Locs: 2, LockedRatio: 0.25,
		Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.ChanSend, progtest.ChanRecv, progtest.Go}}, 8)
}

// TestSpawnNames checks that the trace hash does not depend on how the
// runtime numbers goroutines. g1's goroutine and g2's get their ids in
// the order an exploration first starts them, which dfs and mpor and
// sdpor, whose first executions differ, do not share: the hash named
// events by goroutine id, and the engines' one trace hashed differently
// (WEFT_TRACE_PROGRAMS=1500 in TestSpawns).
func TestSpawnNames(t *testing.T) {
	p, err := progtest.Parse(`
locs: 1
g1: [recv 0 0] [cas 0 1→0] [load 0] [go]
g2: [send 0 1] [go]
`)
	if err != nil {
		t.Fatal(err)
	}
	var s stats
	if !compare(t, p, 0, &s) {
		t.Fatalf("dfs did not explore every execution of\n%s", p)
	}
}
