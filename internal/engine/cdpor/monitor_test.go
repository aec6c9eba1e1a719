package cdpor_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sym"
	"weft.dev/weft/sync"
)

// The effects the monitor tests draw from, over a state of two integers
// (x, z), each with one argument v.
var effects = []struct {
	name string
	f    func(s, a []sym.Int) []sym.Int
}{
	// Example 1's blocks (p: x++; q: if z >= 0 { z = x }; r: x++; z++).
	{"p", func(s, _ []sym.Int) []sym.Int { s[0] = s[0].Add(sym.Const(1)); return nil }},
	{"q", func(s, _ []sym.Int) []sym.Int {
		if s[1].Ge(sym.Const(0)).Eval() {
			s[1] = s[0]
		}
		return nil
	}},
	{"r", func(s, _ []sym.Int) []sym.Int {
		s[0], s[1] = s[0].Add(sym.Const(1)), s[1].Add(sym.Const(1))
		return nil
	}},
	// A register (resolved, value) that the first resolve sets: two
	// resolves commute once it is resolved, uniformly if nothing
	// unresolves it.
	{"resolve", func(s, a []sym.Int) []sym.Int {
		if s[0].Eq(sym.Const(0)).Eval() {
			s[0], s[1] = sym.Const(1), a[0]
		}
		return []sym.Int{s[1]}
	}},
	// Adds v to z unless x is 0, and returns whether it did.
	{"addIf", func(s, a []sym.Int) []sym.Int {
		if s[0].Ne(sym.Const(0)).Eval() {
			s[1] = s[1].Add(a[0])
			return []sym.Int{sym.Const(1)}
		}
		return []sym.Int{sym.Const(0)}
	}},
	// Increments x up to 2 and returns whether it was full: two commute
	// once it is full, uniformly (from 1, they agree in both orders, but
	// an increment leads to 2, where they do not).
	{"saturate", func(s, _ []sym.Int) []sym.Int {
		if s[0].Lt(sym.Const(2)).Eval() {
			s[0] = s[0].Add(sym.Const(1))
			return []sym.Int{sym.Const(0)}
		}
		return []sym.Int{sym.Const(1)}
	}},
	// Sets x to v.
	{"set", func(s, a []sym.Int) []sym.Int { s[0] = a[0]; return nil }},
	// Reads the state.
	{"get", func(s, _ []sym.Int) []sym.Int { return []sym.Int{s[0], s[1]} }},
}

func effectIndex(name string) int {
	for i, e := range effects {
		if e.name == name {
			return i
		}
	}
	panic(name)
}

// monitorOp is an operation of a monitor program: a section of an effect
// with an argument, a store to an atomic (the interference of other
// code), or an assertion on the goroutine's last result.
type monitorOp struct {
	effect int // -1: a store of v to the atomic y; -2: assert last != v
	v      int64
}

// monitorProgram is a program of goroutines on one monitor whose state
// starts at (x0, z0), with the effects declared, in that order.
type monitorProgram struct {
	x0, z0   int64
	declared []int
	gs       [][]monitorOp
}

func (p monitorProgram) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "state (%d, %d), effects", p.x0, p.z0)
	for _, e := range p.declared {
		fmt.Fprintf(&b, " %s", effects[e].name)
	}
	b.WriteByte('\n')
	for i, g := range p.gs {
		fmt.Fprintf(&b, "g%d:", i+1)
		for _, o := range g {
			if o.effect == -1 {
				fmt.Fprintf(&b, " y=%d;", o.v)
			} else if o.effect == -2 {
				fmt.Fprintf(&b, " assert last != %d;", o.v)
			} else {
				fmt.Fprintf(&b, " %s(%d);", effects[o.effect].name, o.v)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// body runs the program: every goroutine stores each section's results
// to atomics, and the body, after joining them, the final state, so that
// the observer's final states see them.
func (p monitorProgram) body() func() {
	return func() {
		m := sync.NewMonitor(p.x0, p.z0)
		decl := map[int]*sync.Effect{}
		for _, e := range p.declared {
			decl[e] = m.Declare(1, effects[e].f)
		}
		get := m.Declare(1, effects[effectIndex("get")].f)
		var y atomic.Int64
		var gs []*weft.Goroutine
		for _, ops := range p.gs {
			gs = append(gs, weft.Go(func() {
				var out atomic.Int64
				var last int64
				for _, o := range ops {
					switch o.effect {
					case -1:
						y.Store(o.v)
						continue
					case -2:
						weft.Assert(last != o.v, "last result %d", last)
						continue
					}
					for _, r := range decl[o.effect].Do(o.v) {
						out.Store(r)
						last = r
					}
				}
			}))
		}
		for _, g := range gs {
			g.Join()
		}
		var final atomic.Int64
		for _, v := range get.Do(0) {
			final.Store(v)
		}
	}
}

// TestExample4 runs the paper's Fig. 1 (p, q and r, a section each) from
// its two initial states. From z = -1, x = -2 (Example 4), q and r commute
// in the initial state but not after p, which writes x: the IC is not
// uniform, and a cdpor that used it would find only p.q.r's final state,
// z = 0, and miss r.q.p's, z = -1. Only p and r commute here (always), so
// cdpor explores 4 executions where sdpor explores 6, the paper's figure
// for SDPOR with an exact unconditional relation.
func TestExample4(t *testing.T) {
	p, q, r := effectIndex("p"), effectIndex("q"), effectIndex("r")
	for _, z0 := range []int64{-1, -2} {
		prog := monitorProgram{x0: -2, z0: z0, declared: []int{p, q, r}, gs: [][]monitorOp{{{p, 0}}, {{q, 0}}, {{r, 0}}}}
		t.Run(fmt.Sprintf("z=%d", z0), func(t *testing.T) {
			var s totals
			compare(t, prog.body(), prog, 10_000, false, &s)
			sd, cd := run(prog.body(), newSDPOR, 0), run(prog.body(), newCDPOR, 0)
			if sd.complete != 6 || cd.complete != 4 {
				t.Errorf("complete executions: sdpor %d, cdpor %d; want 6 and 4", sd.complete, cd.complete)
			}
			if ref := run(prog.body(), newDFS, 0); len(ref.states) != len(cd.states) {
				t.Errorf("final states: dfs %d, cdpor %d", len(ref.states), len(cd.states))
			}
		})
	}
}

// TestResolve runs n goroutines that resolve a register with their ids:
// which resolves first decides every result, and once it is resolved the
// other resolves commute (a uniform IC: nothing unresolves it), so that
// cdpor explores n executions where sdpor explores n!. Declaring set,
// which writes the flag (x) and can unresolve the register, makes the IC
// not uniform, and cdpor explores what sdpor does. With saturating
// increments instead, the sections that find the counter full commute:
// the orders of the first two, 4·3 of the 4! orders.
func TestResolve(t *testing.T) {
	resolve, set, saturate := effectIndex("resolve"), effectIndex("set"), effectIndex("saturate")
	for _, c := range []struct {
		effect, n, sdpor, cdpor int
		withSet                 bool
	}{
		{resolve, 2, 2, 2, false},
		{resolve, 3, 6, 3, false},
		{resolve, 4, 24, 4, false},
		{resolve, 3, 6, 6, true},
		{saturate, 4, 24, 12, false},
	} {
		prog := monitorProgram{declared: []int{c.effect}}
		if c.withSet {
			prog.declared = append(prog.declared, set)
		}
		for i := range c.n {
			prog.gs = append(prog.gs, []monitorOp{{c.effect, int64(i + 1)}})
		}
		t.Run(fmt.Sprintf("%s,n=%d,set=%v", effects[c.effect].name, c.n, c.withSet), func(t *testing.T) {
			sd, cd := run(prog.body(), newSDPOR, 0), run(prog.body(), newCDPOR, 0)
			if sd.complete != c.sdpor || cd.complete != c.cdpor {
				t.Errorf("complete executions: sdpor %d, cdpor %d; want %d and %d", sd.complete, cd.complete, c.sdpor, c.cdpor)
			}
			var s totals
			compare(t, prog.body(), prog, 100_000, false, &s)
		})
	}
}

// TestRandomMonitors compares cdpor with dfs on random programs of
// sections of declared effects on one monitor, from random initial
// states, beside stores to an atomic and assertions on the sections'
// results: the same final states (every section's results, the final
// state), bug kinds and classes of bug endings, never more executions
// than sdpor.
func TestRandomMonitors(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	pool := []int{effectIndex("p"), effectIndex("q"), effectIndex("r"), effectIndex("resolve"), effectIndex("addIf"), effectIndex("saturate"), effectIndex("set")}
	var s totals
	for s.programs < programs(t, 100) {
		var p monitorProgram
		p.x0, p.z0 = int64(rng.IntN(4)-2), int64(rng.IntN(4)-2)
		for _, e := range pool {
			if rng.IntN(2) == 0 {
				p.declared = append(p.declared, e)
			}
		}
		if len(p.declared) == 0 {
			continue
		}
		ops := 0
		p.gs = make([][]monitorOp, 2+rng.IntN(2))
		for i := range p.gs {
			for range 1 + rng.IntN(2) {
				o := monitorOp{effect: p.declared[rng.IntN(len(p.declared))], v: int64(rng.IntN(3) - 1)}
				switch rng.IntN(8) {
				case 0:
					o.effect = -1
				case 1:
					o.effect = -2
				}
				p.gs[i] = append(p.gs[i], o)
				ops++
			}
		}
		if ops > 5 {
			continue
		}
		compare(t, p.body(), p, 20_000, false, &s)
		if t.Failed() {
			return
		}
	}
	t.Log(&s)
}
