package weft_test

import (
	"fmt"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
)

// A counter incremented by a Load and a Store loses updates.
func ExampleExplore() {
	res, err := weft.Explore(func() {
		var n atomic.Int64
		inc := func() { n.Store(n.Load() + 1) }
		g := weft.Go(inc)
		inc()
		g.Join()
		weft.Assert(n.Load() == 2, "lost update: n = %d", n.Load())
	})
	if err != nil {
		panic(err)
	}
	for _, b := range res.Bugs {
		fmt.Println(b.Kind, "-", b.Message)
	}
	// Output: assertion failed - lost update: n = 1
}

// With a mutex no update is lost, in any of the interleavings.
func ExampleExplore_mutex() {
	res, _ := weft.Explore(func() {
		var mu sync.Mutex
		var n weft.Var[int]
		inc := func() {
			mu.Lock()
			defer mu.Unlock()
			n.Store(n.Load() + 1)
		}
		g := weft.Go(inc)
		inc()
		g.Join()
		weft.Assert(n.Load() == 2, "lost update: n = %d", n.Load())
	})
	fmt.Println(len(res.Bugs), "bugs, exhaustive:", res.Exhaustive)
	// Output: 0 bugs, exhaustive: true
}

// Assume discards executions: here, those where the goroutine has not run
// yet when the body checks.
func ExampleAssume() {
	res, _ := weft.Explore(func() {
		var x atomic.Int32
		weft.Go(func() { x.Store(1) })
		weft.Assume(x.Load() == 1)
	})
	fmt.Println(res.Blocked > 0, len(res.Bugs))
	// Output: true 0
}

// A replay token re-runs exactly the execution of a bug.
func ExampleWithReplay() {
	body := func() {
		var v weft.Var[int]
		weft.Go(func() { v.Store(1) })
		v.Store(2)
	}
	res, _ := weft.Explore(body)
	again, _ := weft.Explore(body, weft.WithReplay(res.Bugs[0].Replay))
	fmt.Println(again.Executions, again.Bugs[0].Kind)
	// Output: 1 data race
}

// A goroutine waits in a spin loop for a flag: one complete execution, not
// one per spin.
func ExampleYield() {
	res, _ := weft.Explore(func() {
		var data, ready atomic.Int64
		weft.Go(func() {
			data.Store(42)
			ready.Store(1)
		})
		for ready.Load() == 0 {
			weft.Yield()
		}
		weft.Assert(data.Load() == 42, "data = %d", data.Load())
	})
	fmt.Println(res.Complete, "complete,", len(res.Bugs), "bugs")
	// Output: 1 complete, 0 bugs
}
