package dfs_test

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/sync"
)

// TestTraces checks the number of Mazurkiewicz traces dfs counts, and that
// it is below the number of interleavings where the relation commutes
// something.
func TestTraces(t *testing.T) {
	tests := []struct {
		name   string
		body   func()
		traces int
	}{
		{"store buffering", func() {
			var x, y atomic.Int32
			g := weft.Go(func() { x.Store(1); y.Load() })
			y.Store(1)
			x.Load()
			g.Join()
		}, 3},
		{"independent stores", func() {
			var x, y atomic.Int32
			g := weft.Go(func() { x.Store(1); x.Store(2) })
			y.Store(1)
			y.Store(2)
			g.Join()
		}, 1},
		{"three loads", func() {
			var x atomic.Int32
			g1 := weft.Go(func() { x.Load() })
			g2 := weft.Go(func() { x.Load() })
			x.Load()
			g1.Join()
			g2.Join()
		}, 1},
		{"failing CASes", func() {
			var x atomic.Int32
			g1 := weft.Go(func() { x.CompareAndSwap(1, 2) })
			g2 := weft.Go(func() { x.CompareAndSwap(3, 4) })
			x.CompareAndSwap(5, 6)
			g1.Join()
			g2.Join()
		}, 1},
		{"three critical sections", func() {
			var mu sync.Mutex
			var n weft.Var[int]
			inc := func() { mu.Lock(); n.Store(n.Load() + 1); mu.Unlock() }
			g1 := weft.Go(inc)
			g2 := weft.Go(inc)
			inc()
			g1.Join()
			g2.Join()
		}, 6},
		{"send and receive", func() {
			c := weft.MakeChan[int](1)
			g := weft.Go(func() { c.Send(1) })
			c.Recv()
			g.Join()
		}, 1},
	}
	for _, tt := range tests {
		traces := map[uint64]bool{}
		d := dfs.New(engine.Config{}).(*dfs.Engine)
		d.OnTrace = func(h uint64) { traces[h] = true }
		rep := runtime.Run(tt.body, runtime.Config{Engine: d})
		if len(rep.Bugs) > 0 || rep.Internal != "" {
			t.Fatalf("%s: %v %s", tt.name, rep.Bugs, rep.Internal)
		}
		if len(traces) != tt.traces {
			t.Errorf("%s: %d traces in %d interleavings, want %d", tt.name, len(traces), rep.Complete, tt.traces)
		}
	}
}
