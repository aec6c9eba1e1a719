package dfs_test

import (
	"maps"

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

// TestBugClasses checks the number of classes dfs counts for the
// executions that end in a bug (indep.Trace.Ending), by kind: a failure's
// class is its local configuration, so that what the goroutines it does
// not depend on did meanwhile makes no class of its own, while a
// deadlock's is the whole blocked state.
func TestBugClasses(t *testing.T) {
	tests := []struct {
		name    string
		body    func()
		classes map[engine.BugKind]int
		min     int // executions ending in a bug, at least
	}{
		{"failure beside independent stores", func() {
			var x atomic.Int32
			g := weft.Go(func() { x.Store(1); x.Store(2) })
			weft.Assert(false, "always")
			g.Join()
		}, map[engine.BugKind]int{engine.AssertionFailed: 1}, 3},
		{"failure reads a store", func() {
			var x, y atomic.Int32
			g := weft.Go(func() { x.Store(1); y.Store(1) })
			weft.Assert(x.Load() == 0, "stored")
			g.Join()
		}, map[engine.BugKind]int{engine.AssertionFailed: 1}, 2},
		{"panic after either order", func() {
			var x atomic.Int32
			g := weft.Go(func() { x.Store(1) })
			x.Store(2)
			g.Join()
			panic("after")
		}, map[engine.BugKind]int{engine.Panic: 2}, 2},
		{"lock order", func() {
			var a, b sync.Mutex
			g := weft.Go(func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
			a.Lock()
			b.Lock()
			b.Unlock()
			a.Unlock()
			g.Join()
		}, map[engine.BugKind]int{engine.Deadlock: 1}, 1},
		{"leak", func() {
			var mu sync.Mutex
			var x atomic.Int32
			mu.Lock()
			weft.Go(func() { mu.Lock() })
			weft.Go(func() { x.Store(1) })
			x.Store(2)
		}, map[engine.BugKind]int{engine.GoroutineLeak: 2}, 2},
	}
	for _, tt := range tests {
		classes := map[engine.BugKind]map[uint64]bool{}
		buggy := 0
		d := dfs.New(engine.Config{}).(*dfs.Engine)
		d.OnBug = func(k engine.BugKind, h uint64) {
			if classes[k] == nil {
				classes[k] = map[uint64]bool{}
			}
			classes[k][h] = true
			buggy++
		}
		rep := runtime.Run(tt.body, runtime.Config{Engine: d, AllBugs: true})
		if rep.Internal != "" {
			t.Fatalf("%s: %s", tt.name, rep.Internal)
		}
		got := map[engine.BugKind]int{}
		for k, hs := range classes {
			got[k] = len(hs)
		}
		if !maps.Equal(got, tt.classes) || buggy < tt.min {
			t.Errorf("%s: %v classes in %d executions, want %v in at least %d", tt.name, got, buggy, tt.classes, tt.min)
		}
	}
}
