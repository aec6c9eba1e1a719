package weft_test

import (
	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sym"
	"weft.dev/weft/sync"
)

// reportPrograms are the programs whose reports by Check the golden files
// in testdata/report show. They live in their own file so that editing
// the tests does not move the positions the reports print.
var reportPrograms = []struct {
	name string
	body func()
	opts []weft.Option
}{
	{"lostupdate", func() {
		var n atomic.Int64
		inc := func() { n.Store(n.Load() + 1) }
		g := weft.Go(inc)
		inc()
		g.Join()
		weft.Assert(n.Load() == 2, "lost update: n = %d", n.Load())
	}, nil},
	{"deadlock", func() {
		var a, b sync.Mutex
		g := weft.Go(func() {
			b.Lock()
			defer b.Unlock()
			a.Lock()
			defer a.Unlock()
		})
		a.Lock()
		b.Lock()
		b.Unlock()
		a.Unlock()
		g.Join()
	}, nil},
	{"leak", func() {
		var wg sync.WaitGroup
		wg.Add(2)
		weft.Go(func() {
			wg.Done()
			wg.Wait()
		})
	}, nil},
	{"panic", func() {
		var p atomic.Pointer[int]
		g := weft.Go(func() {
			n := 1
			p.Store(&n)
		})
		if q := p.Load(); q == nil {
			weft.Assume(false)
		}
		g.Join()
		var m map[string]int
		m["boom"] = *p.Load()
	}, nil},
	{"livelock", func() {
		var turn atomic.Int32
		weft.Go(func() {
			for turn.Load() != 1 {
			}
		})
		for turn.Load() != 2 {
		}
	}, []weft.Option{weft.WithMaxSteps(40)}},
	{"allbugs", func() {
		var v weft.Var[int]
		var x atomic.Int32
		g := weft.Go(func() {
			v.Store(1)
			x.Store(1)
		})
		weft.Assert(x.Load() == 0, "saw x = 1")
		v.Store(2)
		g.Join()
	}, []weft.Option{weft.WithAllBugs()}},
	{"channels", func() {
		c := weft.MakeChan[int](0)
		done := weft.MakeChan[bool](1)
		weft.Go(func() {
			c.Send(1)
			done.Send(true)
		})
		var v int
		if weft.Select(c.RecvCase(&v, nil), weft.Default()) == 1 {
			return // leaks the sender
		}
		done.Recv()
	}, nil},
	{"symbolic", func() {
		x := sym.IntIn("x", 0, 100)
		var v weft.Var[int]
		g := weft.Go(func() {
			if x.Gt(sym.Const(50)).Eval() {
				v.Store(1)
			}
		})
		g.Join()
		sym.Assert(x.Ne(sym.Const(42)), "x is 42")
	}, nil},
}
