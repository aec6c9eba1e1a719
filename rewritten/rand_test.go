package rewritten_test

import (
	"hash/maphash"
	"slices"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/rewritten"
	"weft.dev/weft/sync"
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

// TestMathRand: the counterparts of math/rand's functions draw the same
// numbers in every execution, so that goroutines that pick channels by
// them do the same in every replay (with math/rand's own functions, the
// exploration ends in a nondeterminism bug); the functions keep their
// contracts.
func TestMathRand(t *testing.T) {
	res, err := weft.Explore(func() {
		cs := []*weft.Chan[int]{weft.MakeChan[int](9), weft.MakeChan[int](9), weft.MakeChan[int](9)}
		done := weft.MakeChan[int](0)
		for range 3 {
			weft.Go(func() {
				cs[rewritten.RandIntn(3)].Send(1)
				cs[rewritten.RandIntN(3)].Send(1)
				cs[rewritten.RandN(int64(3))].Send(1)
				done.Send(1)
			})
		}
		for range 3 {
			done.Recv()
		}
	}, weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) > 0 || !res.Exhaustive {
		t.Errorf("got %+v, want an exhaustive exploration and no bug", res)
	}

	for _, n := range []int{1, 2, 7, 100} {
		if v := rewritten.RandIntn(n); v < 0 || v >= n {
			t.Errorf("RandIntn(%d) = %d", n, v)
		}
		if v := rewritten.RandN(uint8(n)); int(v) >= n {
			t.Errorf("RandN(%d) = %d", n, v)
		}
	}
	if p := rewritten.RandPerm(5); !slices.Equal(slices.Sorted(slices.Values(p)), []int{0, 1, 2, 3, 4}) {
		t.Errorf("RandPerm(5) = %v", p)
	}
	b := make([]byte, 13)
	if n, err := rewritten.RandRead(b); n != 13 || err != nil || slices.Equal(b, make([]byte, 13)) {
		t.Errorf("RandRead: %d, %v, %v", n, err, b)
	}
	for _, f := range []func(){func() { rewritten.RandN(0) }, func() { rewritten.RandIntn(-1) }, func() { rewritten.RandInt64N(0) }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic on a bound that is not positive")
				}
			}()
			f()
		}()
	}
}

// TestMakeSeed: a seed of hash/maphash made inside a check is the same in
// every execution, so that goroutines that pick a shard by a hash pick the
// same one in every replay (with maphash's own seeds, the exploration
// ended in a nondeterminism bug); outside a check it is a seed too.
func TestMakeSeed(t *testing.T) {
	res, err := weft.Explore(func() {
		seed := rewritten.MakeSeed()
		var shards [4]sync.Mutex
		var wg sync.WaitGroup
		for _, k := range []string{"a", "b", "c"} {
			wg.Add(1)
			weft.Go(func() {
				defer wg.Done()
				m := &shards[maphash.String(seed, k)%4]
				m.Lock()
				m.Unlock()
			})
		}
		wg.Wait()
	}, weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) > 0 || !res.Exhaustive {
		t.Errorf("got %+v, want an exhaustive exploration and no bug", res)
	}
	seed := rewritten.MakeSeed()
	if maphash.String(seed, "x") != maphash.String(seed, "x") || maphash.String(seed, "x") == maphash.String(seed, "y") {
		t.Error("a seed made outside a check does not hash")
	}
}
