package sync_test

import (
	"fmt"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
)

// A check-then-act on a Map: both goroutines may find the key missing and
// both store it; LoadOrStore would let exactly one of them win.
func ExampleMap() {
	res, _ := weft.Explore(func() {
		var sessions sync.Map
		var created atomic.Int32
		open := func() {
			if _, ok := sessions.Load("alice"); !ok {
				sessions.Store("alice", created.Add(1))
			}
		}
		g := weft.Go(open)
		open()
		g.Join()
		weft.Assert(created.Load() == 1, "%d sessions created for alice", created.Load())
	})
	fmt.Println(res.Bugs[0].Message)
	// Output: 2 sessions created for alice
}

// A Get may take any item put back, or miss: weft explores both.
func ExamplePool() {
	got := map[string]bool{}
	weft.Explore(func() {
		p := sync.Pool{New: func() any { return "new" }}
		p.Put("reused")
		got[p.Get().(string)] = true
	})
	fmt.Println(got)
	// Output: map[new:true reused:true]
}

// OnceValue runs its function once, whoever calls first, and every call
// returns its result.
func ExampleOnceValue() {
	configs := map[string]bool{}
	weft.Explore(func() {
		var loads atomic.Int32
		config := sync.OnceValue(func() string { return fmt.Sprint("config #", loads.Add(1)) })
		var other string
		g := weft.Go(func() { other = config() })
		mine := config()
		g.Join()
		configs[mine+", "+other] = true
	})
	fmt.Println(configs)
	// Output: map[config #1, config #1:true]
}
