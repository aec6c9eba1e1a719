package indep_test

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/cdpor"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/engine/sdpor"
	"weft.dev/weft/internal/progtest"
)

// withRefinedDFS is dfs hashing the traces and bug endings of cdpor's
// relation.
func withRefinedDFS(conc *concolic.Config, trace, class func(uint64)) engine.Engine {
	d := dfs.New(engine.Config{Concolic: conc}).(*dfs.Engine)
	d.OnTrace, d.OnComplete, d.Refine = trace, class, &cdpor.Relation{}
	return d
}

func withCDPOR(conc *concolic.Config, trace, class func(uint64)) engine.Engine {
	d := cdpor.New(engine.Config{Concolic: conc}).(*sdpor.Engine)
	d.OnTrace, d.OnComplete = trace, class
	return d
}

// TestCDPOR compares cdpor with dfs under cdpor's relation, which lets
// two stores of one value commute (dfs.Engine.Refine), on programs whose
// stores often write one value: the same bug kinds, each of dfs's traces
// completed at least once and each of its classes of bug endings reached
// at least once, nothing else. (Under indep's relation cdpor misses the
// traces that differ only in the order of two such stores: it explores
// one order.) WEFT_TRACE_PROGRAMS=n compares n programs in each.
func TestCDPOR(t *testing.T) {
	for _, c := range []struct {
		name   string
		seed   uint64
		n, ops int // programs, operations at most
		c      progtest.Config
	}{
		{"stores", 61, 40, 7, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 4}, Locs: 2, LockedRatio: 0.2,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Store, progtest.Add, progtest.CAS, progtest.Assert}}},
		{"bugs", 63, 60, 8, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 4}, Locs: 2, LockedRatio: 0.2,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Store, progtest.Assume, progtest.Assert, progtest.VarLoad, progtest.VarStore, progtest.Lock, progtest.Unlock}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(c.seed, c.seed+1))
			var bugs progtest.BugFigures
			programs, traces, complete, fewer := 0, 0, 0, 0
			for programs < progtest.Programs(t, c.n) {
				cfg := c.c
				cfg.Locs = 1 + rng.IntN(cfg.Locs)
				p := progtest.Generate(rng, cfg)
				if p.Ops() > c.ops {
					continue
				}
				body := p.Body()
				ref := explore(body, 20_000, withRefinedDFS)
				if !ref.exhaustive {
					continue
				}
				programs++
				traces += len(ref.traces)
				bugs.AddRef("dfs", ref.bugs)
				got := explore(body, 0, withCDPOR)
				if !maps.Equal(got.kinds, ref.kinds) {
					t.Errorf("cdpor finds bug kinds %v, dfs %v, on\n%s", slices.Sorted(maps.Keys(got.kinds)), slices.Sorted(maps.Keys(ref.kinds)), p)
				}
				if missed, extra, _ := compareTraces(ref, got); missed > 0 || extra > 0 {
					t.Errorf("cdpor: %d of dfs's %d traces missed, %d unknown, on\n%s", missed, len(ref.traces), extra, p)
				}
				if missed, extra, _ := progtest.CompareBugs(ref.bugs, got.bugs, progtest.Never); missed > 0 || extra > 0 {
					t.Errorf("cdpor: %d of dfs's %d classes of bug endings missed, %d unknown, on\n%s", missed, len(ref.bugs), extra, p)
				}
				bugs.Add("cdpor", got.bugs)
				complete += got.complete
				if sd := explore(body, 0, withSDPOR); got.complete+got.redundant < sd.complete+sd.redundant {
					fewer++
				}
				if t.Failed() {
					return
				}
			}
			t.Logf("%d programs, %d traces of cdpor's relation: cdpor %d complete, fewer executions than sdpor on %d programs; %s", programs, traces, complete, fewer, &bugs)
		})
	}
}
