package rewritten_test

import (
	"slices"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/rewritten"
)

// TestCheaprand: a goroutine draws the same numbers in every execution,
// whatever the interleaving, so that condpor's replays agree (no
// nondeterminism bug) however the numbers steer the program; two
// goroutines draw different ones.
func TestCheaprand(t *testing.T) {
	var first []uint32 // g1's numbers in the first execution
	res, err := weft.Explore(func() {
		var x [4]atomic.Int32
		var mine, main []uint32
		g := weft.Go(func() {
			for range 3 {
				n := rewritten.Cheaprand()
				mine = append(mine, n)
				x[n%4].Add(1)
			}
		})
		for range 3 {
			n := rewritten.Cheaprand()
			main = append(main, n)
			x[rewritten.Cheaprandn(4)].Add(1)
		}
		g.Join()
		if first == nil {
			first = mine
		}
		weft.Assert(slices.Equal(mine, first), "g1 drew %v, then %v", first, mine)
		weft.Assert(!slices.Equal(mine, main), "g0 and g1 drew the same numbers %v", mine)
	}, weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) > 0 || res.Executions < 2 {
		t.Fatalf("%d executions, bugs %v; want several, none", res.Executions, res.Bugs)
	}
}
