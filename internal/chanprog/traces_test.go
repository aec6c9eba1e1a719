package chanprog

import (
	"slices"
	"testing"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/cdpor"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/engine/mpor"
	"weft.dev/weft/internal/engine/sdpor"
	"weft.dev/weft/internal/indep"
	"weft.dev/weft/internal/progtest"
)

// TestTraceEnginesMPOR compares mpor with dfs on the generated programs:
// the same bug kinds (with WithAllBugs), each of dfs's Mazurkiewicz
// traces (package indep) completed exactly once, nothing else, and each
// of dfs's classes of bug endings (indep.Trace.Ending) reached, nothing
// else: a deadlock or a leak, a trace, exactly once, a failure at least
// once (an interleaving explorer stops at a failure, whose local
// configuration it may reach after different moves of the goroutines the
// failure does not depend on). WEFT_TRACE_PROGRAMS=n compares n programs.
func TestTraceEnginesMPOR(t *testing.T) { compareTraceEngine(t, "mpor") }

// TestTraceEnginesSDPOR is the same for sdpor, each trace, deadlock and
// leak at least once.
// Its first 40 programs of seed 7 include the two (8 and 16) whose selects
// mix an offer with a buffered case, on which sdpor missed traces.
func TestTraceEnginesSDPOR(t *testing.T) { compareTraceEngine(t, "sdpor") }

// TestTraceEnginesCDPOR is the same for cdpor, each trace at least once,
// against dfs under cdpor's relation (dfs.Engine.Refine), where two
// atomic stores of one value commute: cdpor explores one of their orders.
func TestTraceEnginesCDPOR(t *testing.T) { compareTraceEngine(t, "cdpor") }

// TestSDPORBugEndings checks that sdpor reaches every class of bug ending
// of dfs on the programs where the oracle found it missing one (seed 7,
// programs 1071 and 1898 of 2,000, shrunk), both a wait decided by the
// goroutine that took the offer, with no race to reverse: a deadlock where
// g1's select takes g2's send on c0, which sdpor explored only after g0
// took g1's offer on c1 (g2's offer, which made g1's case ready, came
// after that taker, and only a close, a buffered value or room counted);
// and a leak where g2's second select receives g0's second send, which
// sdpor explored only taken by g1 (g2, which could take it too, next
// waited on an offer of g1's that only that taker made possible).
func TestSDPORBugEndings(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *Program
	}{
		{"offerReadiesTakenSelect", prog(chans(0, 0), nil,
			block(Stmt{Kind: Recv, Chan: 1, Reg: -1}, Stmt{Kind: Recv, Reg: 1}),
			block(sel(false, Case{Reg: 2, OK: true}, Case{Send: true, Chan: 1, Val: K(2)})),
			block(send(0, 3)))},
		{"rivalTakerOfSecondSend", prog(chans(0), nil,
			block(send(0, 2), send(0, 2)),
			block(Stmt{Kind: Recv}, Stmt{Kind: Recv, Reg: 2}, Stmt{Kind: Recv, Reg: 2}, Stmt{Kind: Recv, Reg: 2}),
			block(sel(true, Case{Send: true, Val: K(1), Body: block(sel(false, Case{Send: true, Val: K(2)}, Case{Reg: -1}))})))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := explore(tc.p.Body(), 0, dfsTraces)
			if err != nil {
				t.Fatal(err)
			}
			got, err := explore(tc.p.Body(), 0, func(conc *concolic.Config, on func(uint64)) engine.Engine {
				e := sdpor.New(engine.Config{Concolic: conc}).(*sdpor.Engine)
				e.OnTrace = on
				return e
			})
			if err != nil {
				t.Fatal(err)
			}
			if missed, extra, _ := progtest.CompareBugs(ref.bugs, got.bugs, progtest.Never); missed+extra > 0 || got.kinds != ref.kinds {
				t.Errorf("sdpor: %d of dfs's %d classes of bug endings missed, %d unknown; kinds %v, dfs %v:\n%s", missed, len(ref.bugs), extra, got.kinds, ref.kinds, tc.p.GoSource())
			}
		})
	}
}

// traceEngine makes an engine that reports the trace of each complete
// execution; once: each trace is explored once; refine: the relation it
// explores by, when finer than indep's.
type traceEngine struct {
	name   string
	mk     func(*concolic.Config, func(uint64)) engine.Engine
	once   bool
	refine func() indep.Refinement
}

func compareTraceEngine(t *testing.T, name string) {
	n := progtest.Programs(t, 40)
	engines := []traceEngine{
		{"mpor", func(conc *concolic.Config, on func(uint64)) engine.Engine {
			e := mpor.New(engine.Config{Concolic: conc}).(*mpor.Engine)
			e.OnTrace = on
			return e
		}, true, nil},
		{"sdpor", func(conc *concolic.Config, on func(uint64)) engine.Engine {
			e := sdpor.New(engine.Config{Concolic: conc}).(*sdpor.Engine)
			e.OnTrace = on
			return e
		}, false, nil},
		{"cdpor", func(conc *concolic.Config, on func(uint64)) engine.Engine {
			e := cdpor.New(engine.Config{Concolic: conc}).(*sdpor.Engine)
			e.OnTrace = on
			return e
		}, false, func() indep.Refinement { return &cdpor.Relation{} }},
	}
	engines = slices.DeleteFunc(engines, func(e traceEngine) bool { return e.name != name })
	compared, traces, executions, redundant := 0, 0, 0, 0
	var bugs progtest.BugFigures
	for i, p := range programs(7, n) {
		ref, err := explore(p.Body(), 5_000, func(conc *concolic.Config, on func(uint64)) engine.Engine {
			d := dfsTraces(conc, on).(*dfs.Engine)
			if r := engines[0].refine; r != nil {
				d.Refine = r()
			}
			return d
		})
		if err != nil {
			t.Fatalf("program %d: dfs: %v", i, err)
		}
		if !ref.exhaustive {
			continue
		}
		compared++
		traces += len(ref.classes)
		bugs.AddRef("dfs", ref.bugs)
		for _, eng := range engines {
			got, err := explore(p.Body(), 0, eng.mk)
			if err != nil {
				t.Fatalf("program %d: %s: %v", i, eng.name, err)
			}
			if got.kinds != ref.kinds {
				t.Errorf("program %d: %s finds %v, dfs %v:\n%s", i, eng.name, got.kinds, ref.kinds, p.GoSource())
			}
			for h, k := range got.classes {
				if ref.classes[h] == 0 || eng.once && k > 1 {
					t.Errorf("program %d: %s completes a trace %d times that dfs completes %d times:\n%s", i, eng.name, k, ref.classes[h], p.GoSource())
				}
			}
			for h := range ref.classes {
				if got.classes[h] == 0 {
					t.Errorf("program %d: %s misses a trace:\n%s", i, eng.name, p.GoSource())
				}
			}
			once := progtest.Never
			if eng.once {
				once = progtest.Whole
			}
			if missed, extra, twice := progtest.CompareBugs(ref.bugs, got.bugs, once); missed+extra+twice > 0 {
				t.Errorf("program %d: %s: %d of dfs's %d classes of bug endings missed, %d unknown, %d deadlocks or leaks reached more than once:\n%s", i, eng.name, missed, len(ref.bugs), extra, twice, p.GoSource())
			}
			bugs.Add(eng.name, got.bugs)
			executions += got.executions
			redundant += got.redundant
		}
	}
	t.Logf("%d programs compared, %d traces; %s %d executions, %d dropped; %s", compared, traces, name, executions, redundant, &bugs)
}

// dfsTraces is dfs calling on with the trace of every execution.
func dfsTraces(conc *concolic.Config, on func(uint64)) engine.Engine {
	d := dfs.New(engine.Config{Concolic: conc}).(*dfs.Engine)
	d.OnTrace = on
	return d
}
