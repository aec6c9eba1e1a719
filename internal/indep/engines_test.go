// The tests of the engines that explore indep's traces (sdpor, mpor)
// against dfs's trace count, on progtest's random programs. Set
// WEFT_TRACE_PROGRAMS=n to compare n programs in each.
package indep_test

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/condpor"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/engine/mpor"
	"weft.dev/weft/internal/engine/sdpor"
	"weft.dev/weft/internal/progtest"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/internal/smt"
	isym "weft.dev/weft/internal/sym"
)

var solver = func() smt.Solver {
	s, err := smt.New("builtin")
	if err != nil {
		panic(err)
	}
	return s
}()

// explored is what one engine found on a program.
type explored struct {
	traces  map[uint64]int // complete executions by trace
	classes map[uint64]int // complete executions by Shasha-Snir class
	// bugs counts the executions that reach each class of bug ending
	// (indep.Trace.Ending).
	bugs progtest.BugEndings
	// maximal counts qpor's executions by the trace of their maximal
	// configuration, however they end (qpor.Engine.OnMaximal).
	maximal    map[uint64]int
	kinds      map[engine.BugKind]bool
	complete   int
	redundant  int // dropped: sleep-set blocked or dead ends
	exhaustive bool
}

func explore(body func(), limit int, mk func(*concolic.Config, func(uint64), func(uint64)) engine.Engine) explored {
	conc := &concolic.Config{Table: isym.NewTable(), Solver: solver}
	x := explored{traces: map[uint64]int{}, classes: map[uint64]int{}, bugs: progtest.BugEndings{}, maximal: map[uint64]int{}, kinds: map[engine.BugKind]bool{}}
	eng := mk(conc, func(h uint64) { x.traces[h]++ }, func(h uint64) { x.classes[h]++ })
	progtest.Observe(eng, x.bugs, x.maximal)
	rep := runtime.Run(body, runtime.Config{Engine: eng, Concolic: conc, MaxExecutions: limit, AllBugs: true, MaxSteps: 1000})
	if rep.Internal != "" {
		panic(rep.Internal)
	}
	for _, f := range rep.Bugs {
		x.kinds[f.Bug.Kind] = true
	}
	x.complete, x.redundant, x.exhaustive = rep.Complete, rep.Dropped, rep.Exhaustive
	return x
}

func withDFS(conc *concolic.Config, trace, class func(uint64)) engine.Engine {
	d := dfs.New(engine.Config{Concolic: conc}).(*dfs.Engine)
	d.OnTrace, d.OnComplete = trace, class
	return d
}

func withSDPOR(conc *concolic.Config, trace, class func(uint64)) engine.Engine {
	d := sdpor.New(engine.Config{Concolic: conc}).(*sdpor.Engine)
	d.OnTrace, d.OnComplete = trace, class
	return d
}

func withMPOR(conc *concolic.Config, trace, class func(uint64)) engine.Engine {
	d := mpor.New(engine.Config{Concolic: conc}).(*mpor.Engine)
	d.OnTrace, d.OnComplete = trace, class
	return d
}

func withCondpor(conc *concolic.Config, _, class func(uint64)) engine.Engine {
	c := condpor.New(engine.Config{Concolic: conc}).(*condpor.Engine)
	c.OnComplete = class
	return c
}

// stats sums what the engines did over the programs compared.
type stats struct {
	programs, traces, sdpor, ssb, mpor, deadEnds int
	bugs                                         progtest.BugFigures
}

// compare checks sdpor and mpor against dfs on one program: the same bug
// kinds; mpor completes each of dfs's traces exactly once and nothing
// else; sdpor completes each at least once and nothing else; both reach
// each of dfs's classes of bug endings at least once and nothing else
// (an interleaving explorer stops at a failure, and may reach its local
// configuration after different moves of the goroutines it does not
// depend on), and mpor each deadlock and leak, a trace, exactly once. It
// returns false when dfs needs more than limit executions.
func compare(t *testing.T, p progtest.Program, limit int, s *stats) bool {
	t.Helper()
	body := p.Body()
	ref := explore(body, limit, withDFS)
	if !ref.exhaustive {
		return false
	}
	s.bugs.AddRef("dfs", ref.bugs)
	for _, c := range []struct {
		name string
		mk   func(*concolic.Config, func(uint64), func(uint64)) engine.Engine
		once bool
	}{{"mpor", withMPOR, true}, {"sdpor", withSDPOR, false}} {
		got := explore(body, 0, c.mk)
		if !maps.Equal(got.kinds, ref.kinds) {
			t.Errorf("%s finds bug kinds %v, dfs %v, on\n%s", c.name, slices.Sorted(maps.Keys(got.kinds)), slices.Sorted(maps.Keys(ref.kinds)), p)
			continue
		}
		missed, extra, twice := compareTraces(ref, got)
		if missed > 0 || extra > 0 || c.once && twice > 0 {
			t.Errorf("%s: %d of dfs's %d traces missed, %d unknown, %d explored more than once, on\n%s", c.name, missed, len(ref.traces), extra, twice, p)
		}
		once := progtest.Never
		if c.once {
			once = progtest.Whole
		}
		if missed, extra, twice := progtest.CompareBugs(ref.bugs, got.bugs, once); missed > 0 || extra > 0 || twice > 0 {
			t.Errorf("%s: %d of dfs's %d classes of bug endings missed, %d unknown, %d deadlocks or leaks reached more than once, on\n%s", c.name, missed, len(ref.bugs), extra, twice, p)
		}
		s.bugs.Add(c.name, got.bugs)
		n := 0
		for _, k := range got.traces {
			n += k
		}
		if c.once {
			s.mpor += n
			s.deadEnds += got.redundant
		} else {
			s.sdpor += n
			s.ssb += got.redundant
		}
	}
	s.programs++
	s.traces += len(ref.traces)
	return true
}

func differential(t *testing.T, seed uint64, n int, c progtest.Config, maxOps int) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var s stats
	for s.programs < progtest.Programs(t, n) {
		c := c
		c.Locs = 1 + rng.IntN(c.Locs)
		p := progtest.Generate(rng, c)
		if p.Ops() > maxOps {
			continue
		}
		compare(t, p, 20_000, &s)
		if t.Failed() {
			return
		}
	}
	t.Logf("%d programs, %d traces: mpor %d complete, %d dead ends; sdpor %d complete, %d sleep-set blocked; %s", s.programs, s.traces, s.mpor, s.deadEnds, s.sdpor, s.ssb, &s.bugs)
}

func TestMemory(t *testing.T) {
	differential(t, 21, 60, progtest.Config{Goroutines: [2]int{2, 4}, Ops: [2]int{1, 4}, Locs: 3, LockedRatio: 0.25,
		Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Assume}}, 8)
}

func TestBugs(t *testing.T) {
	differential(t, 23, 60, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 4}, Locs: 2, LockedRatio: 0.2,
		Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Assume, progtest.Assert, progtest.VarLoad, progtest.VarStore, progtest.Lock, progtest.Unlock}}, 8)
}

func TestSymbolic(t *testing.T) {
	differential(t, 25, 60, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{2, 4}, Locs: 2, LockedRatio: 0.1,
		Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.SymNew, progtest.SymStore, progtest.SymLoad, progtest.SymBranch, progtest.SymAssume}}, 8)
}

func TestChannels(t *testing.T) {
	differential(t, 27, 80, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 3}, Locs: 3,
		Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.ChanSend, progtest.ChanRecv, progtest.ChanClose, progtest.ChanLen, progtest.ChanSelect}}, 7)
}

// TestTracesAreClasses checks that on programs of loads, stores and
// read-modify-writes only, Mazurkiewicz traces are Shasha-Snir classes:
// dfs's trace count is condpor's complete count.
func TestTracesAreClasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	kinds := []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS}
	for n := 0; n < progtest.Programs(t, 50); {
		p := progtest.Generate(rng, progtest.Config{Goroutines: [2]int{2, 4}, Ops: [2]int{1, 4}, Locs: 1 + rng.IntN(3), Kinds: kinds})
		if p.Ops() > 8 {
			continue
		}
		n++
		ref := explore(p.Body(), 20_000, withDFS)
		if !ref.exhaustive {
			continue
		}
		opt := explore(p.Body(), 0, withCondpor)
		if len(ref.traces) != opt.complete || len(ref.traces) != len(ref.classes) {
			t.Fatalf("%d traces, %d classes, condpor %d complete executions, on\n%s", len(ref.traces), len(ref.classes), opt.complete, p)
		}
	}
}

// compareTraces returns how many of ref's traces got misses, how many of
// got's ref never saw, and how many got explored more than once.
func compareTraces(ref, got explored) (missed, extra, twice int) {
	for h := range ref.traces {
		if got.traces[h] == 0 {
			missed++
		}
	}
	for h, n := range got.traces {
		if ref.traces[h] == 0 {
			extra++
		}
		if n > 1 {
			twice++
		}
	}
	return missed, extra, twice
}
