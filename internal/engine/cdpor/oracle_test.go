package cdpor_test

import (
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/cdpor"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/engine/sdpor"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/indep"
	"weft.dev/weft/internal/progtest"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/internal/smt"
	isym "weft.dev/weft/internal/sym"
)

// inner is what an engine under observation offers the runtime.
type inner interface {
	engine.Engine
	engine.Awaiter
	engine.Orderer
}

// observer wraps an engine and hashes the final state of every complete
// execution: what each goroutine performed and got back (but for the
// operands and results inside a declared commuting section, whose order
// the declaration says nothing observes), and the last value written to each memory
// object. Objects are numbered by first use, which differs from one
// interleaving to another: the hash names each by the first operation of
// a goroutine (goroutine, then rank) that touches it. Goroutines are
// numbered as the first execution of an exploration starts them, which
// differs from one engine to another: the hash names each by its parent's
// name and its rank among the parent's children.
type observer struct {
	inner
	states map[uint64]int // complete executions by final state
	ops    []op
	values map[int32]uint64
	sect   map[int32]int32  // goroutine: mutex of its declared section
	names  map[int32]uint64 // goroutine: its name
	kids   map[int32]uint64 // goroutine: how many it started
}

// op is an operation performed, as the final state sees it.
type op struct {
	g         uint64 // the goroutine's name
	rank, obj int32
	l         uint64 // kind, and operand but inside a declared section
	r         uint64 // outcome and result, 0 inside a declared section
}

func observe(e inner) *observer {
	return &observer{inner: e, states: map[uint64]int{}}
}

func (o *observer) Begin(x *engine.Exec) bool {
	o.ops, o.values, o.sect = o.ops[:0], map[int32]uint64{}, map[int32]int32{}
	o.names, o.kids = map[int32]uint64{}, map[int32]uint64{}
	return o.inner.Begin(x)
}

func (o *observer) Step(x *engine.Exec) engine.Decision {
	d := o.inner.Step(x)
	if d.Verdict != engine.Run {
		return d
	}
	g := x.G[d.G]
	l, r := &g.Pending, &g.Result
	_, in := o.sect[g.ID]
	arg := uint64(uint32(l.Arg))
	switch l.Kind {
	case event.Spawn:
		o.kids[g.ID]++
		o.names[l.Arg] = mix(o.names[g.ID], o.kids[g.ID])
		arg = o.names[l.Arg]
	case event.Join:
		arg = o.names[l.Arg]
	}
	p := op{g: o.names[g.ID], rank: g.Steps, obj: l.Obj, l: mix(uint64(l.Kind), arg)}
	if !in {
		p.l = mix(p.l, l.A.N)
		p.r = mix(mix(mix(1, r.V.N), uint64(uint32(d.Alt))), uint64(r.Case)<<2|b2u(r.OK)<<1|b2u(r.Wait))
	}
	o.ops = append(o.ops, p)
	switch {
	case l.Kind == event.Store:
		o.values[l.Obj] = l.Mask(l.A.N)
	case l.Kind == event.RMW:
		if nv, writes, _ := l.UpdateAlt(r.V, int(d.Alt)); writes {
			o.values[l.Obj] = l.Mask(nv.N)
		}
	case l.Kind == event.Lock && l.A.N != 0 && !in:
		o.sect[g.ID] = l.Obj
	case l.Kind == event.Unlock && in && o.sect[g.ID] == l.Obj:
		delete(o.sect, g.ID)
	}
	return d
}

func (o *observer) End(x *engine.Exec, end engine.Ending) {
	o.inner.End(x, end)
	if end.Kind != engine.Completed {
		return
	}
	name := map[int32]uint64{} // object: its first toucher
	for _, p := range o.ops {
		n := mix(p.g, uint64(p.rank))
		if m, ok := name[p.obj]; p.obj >= 0 && (!ok || n < m) {
			name[p.obj] = n
		}
	}
	var h uint64
	for _, p := range o.ops {
		h += mix(mix(mix(mix(1, mix(p.g, uint64(p.rank))), name[p.obj]), p.l), p.r)
	}
	for obj, v := range o.values {
		h += mix(mix(2, name[obj]), v)
	}
	o.states[h]++
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// outcome is what one engine found on a program.
type outcome struct {
	states map[uint64]int
	// bugs counts the executions by the class of bug ending they reach,
	// under cdpor's relation (dfs with Refine; cdpor).
	bugs       progtest.BugEndings
	kinds      map[engine.BugKind]bool
	complete   int
	executions int
	redundant  int
	exhaustive bool
}

var solver = func() smt.Solver {
	s, err := smt.New("builtin")
	if err != nil {
		panic(err)
	}
	return s
}()

// run explores body with the engine that mk makes, up to limit executions
// (0: all).
func run(body func(), mk func(*concolic.Config) inner, limit int) outcome {
	conc := &concolic.Config{Table: isym.NewTable(), Solver: solver}
	o := observe(mk(conc))
	bugs := progtest.BugEndings{}
	switch e := o.inner.(type) {
	case *dfs.Engine:
		e.OnBug, e.Refine = bugs.Add, &cdpor.Relation{}
	case *sdpor.Engine:
		e.OnBug = bugs.Add
	}
	rep := runtime.Run(body, runtime.Config{Engine: o, Concolic: conc, MaxExecutions: limit, AllBugs: true, MaxSteps: 1000})
	if rep.Internal != "" {
		panic(rep.Internal)
	}
	out := outcome{states: o.states, bugs: bugs, kinds: map[engine.BugKind]bool{}, complete: rep.Complete,
		executions: rep.Executions, redundant: rep.Dropped, exhaustive: rep.Exhaustive}
	for _, f := range rep.Bugs {
		out.kinds[f.Bug.Kind] = true
	}
	return out
}

func mix(h, x uint64) uint64 { return indep.Mix(h, x) }
