package weft_test

import (
	"math"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// spinlock runs n goroutines that each take a CAS spinlock, increment a
// plain counter and release it.
func spinlock(n int) func() {
	return func() {
		var lock atomic.Int32
		var count weft.Var[int]
		gs := make([]*weft.Goroutine, n)
		for i := range gs {
			gs[i] = weft.Go(func() {
				for !lock.CompareAndSwap(0, 1) {
					weft.Yield()
				}
				count.Store(count.Load() + 1)
				lock.Store(0)
			})
		}
		for _, g := range gs {
			g.Join()
		}
		weft.Assert(count.Load() == n, "count = %d", count.Load())
	}
}

// TestYieldCounts checks that a spin loop costs one execution per way it
// ends: a message passed through a flag has one, a spinlock taken by n
// goroutines n! (the orders of the critical sections).
func TestYieldCounts(t *testing.T) {
	flag := func() {
		var data, ready atomic.Int64
		weft.Go(func() {
			data.Store(42)
			ready.Store(1)
		})
		for ready.Load() == 0 {
			weft.Yield()
		}
		weft.Assert(data.Load() == 42, "data = %d", data.Load())
	}
	for _, tc := range []struct {
		name     string
		body     func()
		complete int
	}{
		{"flag", flag, 1},
		{"spinlock2", spinlock(2), 2},
		{"spinlock3", spinlock(3), 6},
		{"spinlock4", spinlock(4), 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := weft.Explore(tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) > 0 || !res.Exhaustive || res.Complete != tc.complete {
				t.Fatalf("%d complete executions, exhaustive %v, bugs %v; want %d, no bug", res.Complete, res.Exhaustive, res.Bugs, tc.complete)
			}
			// The cut spins are not many more than the executions.
			if limit := tc.complete * 6; res.Blocked > limit {
				t.Errorf("%d blocked executions, more than %d", res.Blocked, limit)
			}
		})
	}
}

// TestYieldForever checks that a goroutine that spins waiting for a write
// that never comes is reported, by every engine, with its wait.
func TestYieldForever(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func()
		kind weft.BugKind
	}{
		{"body", func() {
			var flag atomic.Int64
			g := weft.Go(func() {
				if flag.Load() == 0 {
					flag.Store(2)
				}
			})
			for flag.Load() != 1 {
				weft.Yield()
			}
			g.Join()
		}, weft.Deadlock},
		{"goroutine", func() {
			var flag atomic.Int64
			weft.Go(func() {
				for flag.Load() == 0 {
					weft.Yield()
				}
			})
		}, weft.GoroutineLeak},
	} {
		for _, eng := range []string{"condpor", "dfs"} {
			t.Run(tc.name+"/"+eng, func(t *testing.T) {
				res, err := weft.Explore(tc.body, weft.WithEngine(eng))
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Bugs) != 1 || res.Bugs[0].Kind != tc.kind || !strings.Contains(res.Bugs[0].Message, "weft.Yield, spinning") {
					t.Fatalf("bugs %v, want one %v in weft.Yield", res.Bugs, tc.kind)
				}
			})
		}
	}
}

// TestYieldWithoutReads checks that a loop calling Yield on something weft
// does not see ends with a StepLimit bug instead of spinning.
func TestYieldWithoutReads(t *testing.T) {
	res, err := weft.Explore(func() {
		x := math.Sqrt(2)
		for x > 0 {
			weft.Yield()
		}
	}, weft.WithMaxSteps(100))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.StepLimit {
		t.Fatalf("bugs %v, want a StepLimit", res.Bugs)
	}
}
