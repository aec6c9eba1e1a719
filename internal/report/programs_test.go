package report_test

import (
	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
)

// programs are small buggy programs whose reports the golden files in
// testdata show. They live in their own file so that editing the tests does
// not move the positions the reports print.
var programs = []struct {
	name     string
	maxSteps int // 0: the default
	body     func()
}{
	{"lostupdate", 0, func() {
		var n atomic.Int64
		inc := func() { n.Store(n.Load() + 1) }
		g := weft.Go(inc)
		inc()
		g.Join()
		weft.Assert(n.Load() == 2, "lost update: n = %d", n.Load())
	}},
	{"deadlock", 0, func() {
		var a, b sync.Mutex
		g := weft.Go(func() {
			b.Lock()
			a.Lock()
		})
		a.Lock()
		b.Lock()
		g.Join()
	}},
	{"datarace", 0, func() {
		var v weft.Var[int]
		weft.Go(func() { v.Store(1) })
		v.Store(2)
	}},
	{"spin", 30, func() {
		var ready atomic.Bool
		weft.Go(func() {
			for !ready.Load() {
			}
		})
	}},
	{"misuse", 0, func() {
		var mu sync.Mutex
		mu.Unlock()
	}},
	{"operations", 0, func() {
		var mu sync.Mutex
		var rw sync.RWMutex
		var wg sync.WaitGroup
		var x atomic.Int32
		var p atomic.Pointer[int]
		var ready atomic.Bool
		var v weft.Var[string]
		cond := sync.NewCond(&mu)
		mu.TryLock()
		mu.TryLock()
		mu.Unlock()
		wg.Add(1)
		g := weft.Go(func() {
			defer wg.Done()
			rw.RLock()
			v.Store("hello")
			rw.RUnlock()
			x.CompareAndSwap(0, 1)
			mu.Lock()
			ready.Store(true)
			cond.Signal()
			mu.Unlock()
		})
		mu.Lock()
		for !ready.Load() {
			cond.Wait()
		}
		mu.Unlock()
		wg.Wait()
		x.CompareAndSwap(0, 2)
		x.Swap(3)
		x.Add(4)
		n := 5
		p.Store(&n)
		p.Load()
		rw.Lock()
		s := v.Load()
		rw.Unlock()
		g.Join()
		weft.Assert(false, "end of the tour: %s", s)
	}},
	{"escaping", 0, func() {
		var v weft.Var[string]
		g := weft.Go(func() { v.Store("<b>\"bold\"</b>\nnext line") })
		g.Join()
		weft.Assert(false, `<script>alert("pwned")</script> & 'single' \N \l %s`, v.Load())
	}},
}
