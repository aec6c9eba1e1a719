package chanprog

import (
	"fmt"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/qpor"
	"weft.dev/weft/internal/progtest"
)

// TestTraceEnginesQPOR compares qpor, optimal and with k = 1, 2, 3, with
// dfs on the generated programs: the same bug kinds (with WithAllBugs),
// each of dfs's Mazurkiewicz traces (package indep) completed exactly
// once and nothing else, each of dfs's classes of bug endings
// (indep.Trace.Ending) reached and nothing else, a deadlock or a leak
// exactly once (a failure once per maximal configuration that holds it:
// see the package documentation of qpor), no maximal configuration, with
// bugs or without, reached twice, for every k, and no sleep-set
// blocked execution when optimal; a bug found without WithAllBugs too,
// and bugs that their replay tokens reproduce. WEFT_TRACE_PROGRAMS=n compares n programs; seed 11 keeps
// them apart from the other engines' (seed 7).
func TestTraceEnginesQPOR(t *testing.T) {
	var s qporFigures
	for i, p := range programs(11, progtest.Programs(t, 150)) {
		s.compare(t, fmt.Sprintf("program %d", i), p, 5_000)
	}
	t.Logf("%s", &s)
}

// qporFigures sums what dfs and qpor did over the programs compared.
type qporFigures struct {
	programs, skipped, traces int
	complete, ssb             [4]int // by k, 0: optimal
	bugs                      progtest.BugFigures
}

func (s *qporFigures) String() string {
	return fmt.Sprintf("%d programs compared (%d skipped: dfs needs more than its limit), %d traces; qpor complete/sleep-set blocked: optimal %d/%d, k=1 %d/%d, k=2 %d/%d, k=3 %d/%d; %s",
		s.programs, s.skipped, s.traces, s.complete[0], s.ssb[0], s.complete[1], s.ssb[1], s.complete[2], s.ssb[2], s.complete[3], s.ssb[3], &s.bugs)
}

// compare checks qpor against dfs on p, unless dfs needs more than limit
// executions.
func (s *qporFigures) compare(t *testing.T, name string, p *Program, limit int) {
	t.Helper()
	ref, err := explore(p.Body(), limit, dfsTraces)
	if err != nil {
		t.Fatalf("%s: dfs: %v", name, err)
	}
	if !ref.exhaustive {
		s.skipped++
		return
	}
	s.programs++
	s.traces += len(ref.classes)
	s.bugs.AddRef("dfs", ref.bugs)
	for k := range 4 {
		got, err := explore(p.Body(), 0, func(conc *concolic.Config, on func(uint64)) engine.Engine {
			q := qpor.Options{K: k}.New(engine.Config{Concolic: conc}).(*qpor.Engine)
			q.OnTrace = on
			return q
		})
		if err != nil {
			t.Fatalf("%s: qpor k=%d: %v", name, k, err)
		}
		if got.kinds != ref.kinds {
			t.Errorf("%s: qpor k=%d finds %v, dfs %v:\n%s", name, k, got.kinds, ref.kinds, p.GoSource())
		}
		missed, extra, twice := 0, 0, 0
		for h, n := range got.classes {
			if ref.classes[h] == 0 {
				extra++
			}
			if n > 1 {
				twice++
			}
		}
		for h := range ref.classes {
			if got.classes[h] == 0 {
				missed++
			}
		}
		if missed+extra+twice > 0 {
			t.Errorf("%s: qpor k=%d: %d of dfs's %d traces missed, %d unknown, %d explored more than once:\n%s", name, k, missed, len(ref.classes), extra, twice, p.GoSource())
		}
		if missed, extra, twice := progtest.CompareBugs(ref.bugs, got.bugs, progtest.Whole); missed+extra+twice > 0 {
			t.Errorf("%s: qpor k=%d: %d of dfs's %d classes of bug endings missed, %d unknown, %d deadlocks or leaks reached more than once:\n%s", name, k, missed, len(ref.bugs), extra, twice, p.GoSource())
		}
		for _, n := range got.maximal {
			if n > 1 {
				t.Errorf("%s: qpor k=%d reaches a maximal configuration %d times:\n%s", name, k, n, p.GoSource())
				break
			}
		}
		s.bugs.Add(fmt.Sprintf("qpor k=%d", k), got.bugs)
		if k == 0 && got.redundant > 0 {
			t.Errorf("%s: optimal qpor abandoned %d executions:\n%s", name, got.redundant, p.GoSource())
		}
		for _, n := range got.classes {
			s.complete[k] += n
		}
		s.ssb[k] += got.redundant
	}
	if ref.kinds == 0 {
		return
	}
	// The bugs as a user sees them: their replay tokens reproduce them,
	// and the first is found without WithAllBugs too.
	var v verdict
	var results []weft.Result
	for _, opts := range [][]weft.Option{{weft.WithAllBugs()}, nil} {
		res, err := weft.Explore(p.Body(), append(opts, weft.WithEngine("qpor"))...)
		if err != nil {
			t.Fatalf("%s: qpor: %v", name, err)
		}
		results = append(results, res)
	}
	if len(results[1].Bugs) == 0 {
		v.fail(propVerdict, "dfs finds %v, qpor (first bug) nothing", ref.kinds)
	}
	checkBugs(&v, p.Body(), results)
	for _, pr := range v.problems {
		t.Errorf("%s: %s: %s:\n%s", name, pr.prop, pr.detail, p.GoSource())
	}
}
