package cdpor_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/cdpor"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/engine/sdpor"
	"weft.dev/weft/internal/progtest"
	"weft.dev/weft/sync"
)

func newDFS(c *concolic.Config) inner {
	return dfs.New(engine.Config{Concolic: c}).(*dfs.Engine)
}

func newSDPOR(c *concolic.Config) inner {
	return sdpor.New(engine.Config{Concolic: c}).(*sdpor.Engine)
}

func newCDPOR(c *concolic.Config) inner {
	return cdpor.New(engine.Config{Concolic: c}).(*sdpor.Engine)
}

// totals sums the complete executions of the engines over the programs
// compared.
type totals struct {
	programs, states, sdpor, cdpor, fewer int
	bugs                                  progtest.BugFigures
}

func (s *totals) String() string {
	return fmt.Sprintf("%d programs, %d final states: sdpor %d complete executions, cdpor %d (fewer on %d programs); %s",
		s.programs, s.states, s.sdpor, s.cdpor, s.fewer, &s.bugs)
}

// compare checks cdpor against dfs and sdpor on one program: the same bug
// kinds as dfs, every final state of dfs's complete executions and no
// other, every class of bug ending of dfs's under cdpor's relation
// (dfs.Engine.Refine) and no other, no more executions than sdpor, and,
// when exact says that the program has no IC to use, exactly sdpor's
// executions and redundant ones. It returns false when dfs needs more
// than limit executions.
func compare(t *testing.T, body func(), text fmt.Stringer, limit int, exact bool, s *totals) bool {
	t.Helper()
	ref := run(body, newDFS, limit)
	if !ref.exhaustive {
		return false
	}
	sd := run(body, newSDPOR, 0)
	cd := run(body, newCDPOR, 0)
	if !maps.Equal(cd.kinds, ref.kinds) {
		t.Errorf("cdpor finds bug kinds %v, dfs %v, on\n%s", slices.Sorted(maps.Keys(cd.kinds)), slices.Sorted(maps.Keys(ref.kinds)), text)
	}
	var missed, extra int
	for h := range ref.states {
		if cd.states[h] == 0 {
			missed++
		}
	}
	for h := range cd.states {
		if ref.states[h] == 0 {
			extra++
		}
	}
	if missed > 0 || extra > 0 {
		t.Errorf("cdpor: %d of dfs's %d final states missed, %d unknown, on\n%s", missed, len(ref.states), extra, text)
	}
	if missed, extra, _ := progtest.CompareBugs(ref.bugs, cd.bugs, progtest.Never); missed > 0 || extra > 0 {
		t.Errorf("cdpor: %d of dfs's %d classes of bug endings missed, %d unknown, on\n%s", missed, len(ref.bugs), extra, text)
	}
	if cd.executions > sd.executions || cd.executions+cd.redundant > sd.executions+sd.redundant ||
		exact && (cd.executions != sd.executions || cd.redundant != sd.redundant) {
		t.Errorf("cdpor: %d executions (%d redundant), sdpor %d (%d), exact %v, on\n%s", cd.executions, cd.redundant, sd.executions, sd.redundant, exact, text)
	}
	s.programs++
	s.states += len(ref.states)
	s.bugs.AddRef("dfs", ref.bugs)
	s.bugs.Add("cdpor", cd.bugs)
	s.sdpor += sd.complete
	s.cdpor += cd.complete
	if cd.complete < sd.complete {
		s.fewer++
	}
	return true
}

// TestRandomMemory compares cdpor with dfs on progtest's random programs
// of atomics (stores draw their values from three, so that stores of the
// same value are common), mutexes, assumptions and assertions.
func TestRandomMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	kinds := []progtest.OpKind{progtest.Load, progtest.Store, progtest.Store, progtest.Add, progtest.CAS, progtest.Assume, progtest.Assert, progtest.VarLoad, progtest.VarStore}
	var s totals
	for s.programs < programs(t, 200) {
		p := progtest.Generate(rng, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 4}, Locs: 1 + rng.IntN(2), LockedRatio: 0.2, Kinds: kinds})
		if p.Ops() > 8 {
			continue
		}
		compare(t, p.Body(), p, 20_000, !sameValueStores(p), &s)
		if t.Failed() {
			return
		}
	}
	t.Log(&s)
}

// TestRandomOthers compares cdpor with dfs on progtest's random programs
// of channels, spin loops and goroutines started midway, beside stores:
// the refinement leaves their relation as it is, but cdpor computes
// happens-before from the objects' events rather than from sdpor's
// summaries.
func TestRandomOthers(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	kinds := []progtest.OpKind{progtest.Load, progtest.Store, progtest.ChanSend, progtest.ChanRecv, progtest.ChanClose, progtest.ChanLen, progtest.ChanSelect, progtest.Await, progtest.Go}
	var s totals
	for s.programs < programs(t, 150) {
		p := progtest.Generate(rng, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 3}, Locs: 1 + rng.IntN(2), LockedRatio: 0.1, Kinds: kinds})
		if p.Ops() > 7 {
			continue
		}
		compare(t, p.Body(), p, 5_000, !sameValueStores(p), &s)
		if t.Failed() {
			return
		}
	}
	t.Log(&s)
}

// TestRandomSymbolic compares cdpor with dfs on progtest's random programs
// with symbolic values, whose branches' outcomes are part of the final
// state.
func TestRandomSymbolic(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	kinds := []progtest.OpKind{progtest.Load, progtest.Store, progtest.SymNew, progtest.SymStore, progtest.SymLoad, progtest.SymBranch, progtest.SymAssume}
	var s totals
	for s.programs < programs(t, 200) {
		p := progtest.Generate(rng, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{2, 4}, Locs: 1 + rng.IntN(2), LockedRatio: 0.1, Kinds: kinds})
		if p.Ops() > 8 {
			continue
		}
		compare(t, p.Body(), p, 5_000, !sameValueStores(p), &s)
		if t.Failed() {
			return
		}
	}
	t.Log(&s)
}

// TestRandomSections compares cdpor with dfs on random programs with
// commuting sections: each goroutine runs operations on atomics, sections
// of one mutex declared commuting (class 1 adds to an accumulator, or
// stores into it the sum of its load and a value; class 2 adds to a
// second accumulator a value that depends on the first, so that it
// commutes with itself but not with class 1) and plain sections of the
// same mutex that read the first accumulator and assert on it; the body
// reads both at the end.
func TestRandomSections(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	var s totals
	for s.programs < programs(t, 200) {
		p := generate(rng)
		if p.ops() > 8 {
			continue
		}
		compare(t, p.body(), p, 2_000, false, &s)
		if t.Failed() {
			return
		}
	}
	t.Log(&s)
}

// sameValueStores reports whether two stores of p, to atomics or to Vars,
// write one value to one location: the built-in IC, the only one a
// progtest program can use.
func sameValueStores(p progtest.Program) bool {
	seen := map[progtest.Op]int{}
	for _, g := range p.Goroutines {
		for _, o := range g {
			if o.Kind == progtest.Store || o.Kind == progtest.VarStore {
				o.New = 0
				seen[o]++
			}
		}
	}
	for _, n := range seen {
		if n > 1 {
			return true
		}
	}
	return false
}

// programs returns how many programs a random test compares: n, fewer in
// short mode, or WEFT_TRACE_PROGRAMS.
func programs(t *testing.T, n int) int {
	if testing.Short() {
		n /= 10
	}
	return progtest.Programs(t, n)
}

// sectOp is an operation of a program with sections.
type sectOp struct {
	kind     string // load, store, add, assert: on x[loc]; csadd, csrmw, csadd2, peek: sections
	loc, val int
}

type sectProgram [][]sectOp

func generate(rng *rand.Rand) sectProgram {
	kinds := []string{"load", "store", "add", "assert", "csadd", "csadd", "csrmw", "csadd2", "peek"}
	p := make(sectProgram, 2+rng.IntN(2))
	for i := range p {
		for range 1 + rng.IntN(3) {
			p[i] = append(p[i], sectOp{kinds[rng.IntN(len(kinds))], rng.IntN(2), rng.IntN(3)})
		}
	}
	return p
}

// ops counts the operations that are scheduling points, roughly.
func (p sectProgram) ops() int {
	n := 0
	for _, g := range p {
		for _, o := range g {
			n++
			if strings.HasPrefix(o.kind, "cs") || o.kind == "peek" {
				n += 2
			}
		}
	}
	return n / 2
}

func (p sectProgram) String() string {
	var b strings.Builder
	for i, g := range p {
		fmt.Fprintf(&b, "g%d:", i+1)
		for _, o := range g {
			fmt.Fprintf(&b, " %s %d %d;", o.kind, o.loc, o.val)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (p sectProgram) body() func() {
	return func() {
		var x [2]atomic.Int64
		var acc, acc2 atomic.Int64
		var mu sync.Mutex
		gs := make([]*weft.Goroutine, len(p))
		for i, ops := range p {
			gs[i] = weft.Go(func() {
				for _, o := range ops {
					v := int64(o.val)
					switch o.kind {
					case "load":
						x[o.loc].Load()
					case "store":
						x[o.loc].Store(v)
					case "add":
						x[o.loc].Add(v)
					case "assert":
						weft.Assert(x[o.loc].Load() != v, "x%d == %d", o.loc, v)
					case "csadd":
						mu.LockCommuting(1)
						acc.Add(v)
						mu.Unlock()
					case "csrmw":
						mu.LockCommuting(1)
						acc.Store(acc.Load() + v)
						mu.Unlock()
					case "csadd2":
						mu.LockCommuting(2)
						acc2.Add(acc.Load()%2 + v)
						mu.Unlock()
					case "peek":
						mu.Lock()
						weft.Assert(acc.Load() != v+1, "acc == %d", v+1)
						mu.Unlock()
					}
				}
			})
		}
		for _, g := range gs {
			g.Join()
		}
		acc.Load()
		acc2.Load()
	}
}

// TestKnown counts the complete executions of sdpor and cdpor on small
// programs.
func TestKnown(t *testing.T) {
	for _, c := range []struct {
		name         string
		body         func()
		sdpor, cdpor int
	}{
		{"the paper's related work: two writes of 5 and a read", func() {
			var x atomic.Int64
			g := weft.Go(func() { x.Store(5) })
			h := weft.Go(func() { x.Store(5) })
			x.Load()
			g.Join()
			h.Join()
		}, 6, 4},
		{"three stores of one value", func() {
			var x atomic.Int64
			var gs []*weft.Goroutine
			for range 3 {
				gs = append(gs, weft.Go(func() { x.Store(1) }))
			}
			for _, g := range gs {
				g.Join()
			}
		}, 6, 1},
		{"stores of two values", func() {
			var x atomic.Int64
			g := weft.Go(func() { x.Store(1) })
			h := weft.Go(func() { x.Store(1) })
			x.Store(2)
			g.Join()
			h.Join()
		}, 6, 4},
		{"Pi: four workers add to a sum in commuting sections", func() {
			var mu sync.Mutex
			var sum weft.Var[int]
			var gs []*weft.Goroutine
			for i := range 4 {
				gs = append(gs, weft.Go(func() {
					mu.LockCommuting(1)
					sum.Store(sum.Load() + i)
					mu.Unlock()
				}))
			}
			for _, g := range gs {
				g.Join()
			}
			weft.Assert(sum.Load() == 6, "sum = %d", sum.Load())
		}, 24, 1},
		{"two commuting sections and a reader", func() {
			var mu sync.Mutex
			var sum weft.Var[int]
			g := weft.Go(func() { mu.LockCommuting(1); sum.Store(sum.Load() + 1); mu.Unlock() })
			h := weft.Go(func() { mu.LockCommuting(1); sum.Store(sum.Load() + 2); mu.Unlock() })
			mu.Lock()
			sum.Load()
			mu.Unlock()
			g.Join()
			h.Join()
		}, 6, 4},
		{"sections of two classes", func() {
			var mu sync.Mutex
			var a, b weft.Var[int]
			var gs []*weft.Goroutine
			for i := range 4 {
				gs = append(gs, weft.Go(func() {
					if i%2 == 0 {
						mu.LockCommuting(1)
						a.Store(a.Load() + 1)
					} else {
						mu.LockCommuting(2)
						b.Store(b.Load() + 1)
					}
					mu.Unlock()
				}))
			}
			for _, g := range gs {
				g.Join()
			}
		}, 24, 14},
	} {
		t.Run(c.name, func(t *testing.T) {
			sd := run(c.body, newSDPOR, 0)
			cd := run(c.body, newCDPOR, 0)
			if sd.complete != c.sdpor || cd.complete != c.cdpor {
				t.Errorf("complete executions: sdpor %d, cdpor %d; want %d and %d", sd.complete, cd.complete, c.sdpor, c.cdpor)
			}
			var s totals
			compare(t, c.body, stringer(c.name), 100_000, false, &s)
		})
	}
}

// TestFalseDeclaration: a declaration that is false makes cdpor miss the
// executions that show the order, as the documentation says. The two
// sections store different values to x, which the body reads: dfs finds
// two final states, cdpor explores one execution.
func TestFalseDeclaration(t *testing.T) {
	body := func() {
		var x atomic.Int64
		var mu sync.Mutex
		f := func(v int64) func() {
			return func() {
				mu.LockCommuting(1)
				x.Store(v)
				mu.Unlock()
			}
		}
		g, h := weft.Go(f(1)), weft.Go(f(2))
		g.Join()
		h.Join()
		x.Load()
	}
	ref, cd := run(body, newDFS, 0), run(body, newCDPOR, 0)
	if len(ref.states) != 2 || len(cd.states) != 1 || cd.executions != 1 {
		t.Errorf("dfs %d final states, cdpor %d in %d executions; want 2, and 1 in 1", len(ref.states), len(cd.states), cd.executions)
	}
}

type stringer string

func (s stringer) String() string { return string(s) }
