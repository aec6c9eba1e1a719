package atomic_test

import (
	"fmt"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// The functions work on plain variables, as sync/atomic's do: a reference
// count that starts at one, released by two owners, is freed exactly once
// in every interleaving, and a plain read sees its final value.
func ExampleAddInt32() {
	frees := map[int]bool{}
	weft.Explore(func() {
		refs := int32(2)
		freed := 0
		release := func() {
			if atomic.AddInt32(&refs, -1) == 0 {
				freed++
			}
		}
		g := weft.Go(release)
		release()
		g.Join()
		frees[freed] = refs == 0
	})
	fmt.Println(frees)
	// Output: map[1:true]
}

// A load followed by a store is not an increment: weft finds the update
// that one of two goroutines loses.
func ExampleLoadInt32() {
	res, _ := weft.Explore(func() {
		var n int32
		inc := func() { atomic.StoreInt32(&n, atomic.LoadInt32(&n)+1) }
		g := weft.Go(inc)
		inc()
		g.Join()
		weft.Assert(n == 2, "lost update: n = %d", n)
	})
	fmt.Println(res.Bugs[0].Message)
	// Output: lost update: n = 1
}
