package indep_test

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"weft.dev/weft/internal/progtest"
	"weft.dev/weft/internal/timeprog"
)

// TestTimePrograms compares the trace engines with dfs on package
// timeprog's random programs (timers, sleeps, tickers, contexts, channels
// and asserts): the same bug kinds, each of dfs's traces completed and
// each of its classes of bug endings reached, nothing else; mpor and qpor
// complete each trace once and reach each deadlock and leak once, and
// optimal qpor abandons no execution. The programs dfs cannot explore in
// 2,000 executions (the clock's steps interleave with everything) are
// skipped. WEFT_TRACE_PROGRAMS=n draws n programs.
func TestTimePrograms(t *testing.T) {
	var bugs progtest.BugFigures
	drawn, compared, traces := progtest.Programs(t, 20), 0, 0
	for i := range uint64(drawn) {
		p := timeprog.Generate(rand.New(rand.NewPCG(101+i, 0)))
		body := p.Body()
		ref := explore(body, 2_000, withDFS)
		if !ref.exhaustive {
			continue
		}
		compared++
		traces += len(ref.traces)
		bugs.AddRef("dfs", ref.bugs)
		for _, c := range []struct {
			name string
			got  explored
			once bool // each trace once
		}{
			{"mpor", explore(body, 0, withMPOR), true},
			{"sdpor", explore(body, 0, withSDPOR), false},
			{"qpor k=0", explore(body, 0, withQPOR(0)), true},
			{"qpor k=1", explore(body, 0, withQPOR(1)), true},
			{"qpor k=2", explore(body, 0, withQPOR(2)), true},
			{"qpor k=3", explore(body, 0, withQPOR(3)), true},
		} {
			got := c.got
			if !maps.Equal(got.kinds, ref.kinds) {
				t.Errorf("seed %d: %s finds bug kinds %v, dfs %v, on\n%s", 101+i, c.name, slices.Sorted(maps.Keys(got.kinds)), slices.Sorted(maps.Keys(ref.kinds)), p)
			}
			missed, extra, twice := compareTraces(ref, got)
			if missed > 0 || extra > 0 || c.once && twice > 0 {
				t.Errorf("seed %d: %s: %d of dfs's %d traces missed, %d unknown, %d explored more than once, on\n%s", 101+i, c.name, missed, len(ref.traces), extra, twice, p)
			}
			once := progtest.Never
			if c.once {
				once = progtest.Whole
			}
			if missed, extra, twice := progtest.CompareBugs(ref.bugs, got.bugs, once); missed+extra+twice > 0 {
				t.Errorf("seed %d: %s: %d of dfs's %d classes of bug endings missed, %d unknown, %d deadlocks or leaks reached more than once, on\n%s", 101+i, c.name, missed, len(ref.bugs), extra, twice, p)
			}
			for _, n := range got.maximal {
				if n > 1 {
					t.Errorf("seed %d: %s reaches a maximal configuration %d times, on\n%s", 101+i, c.name, n, p)
					break
				}
			}
			if c.name == "qpor k=0" && got.redundant > 0 {
				t.Errorf("seed %d: optimal qpor abandoned %d executions of\n%s", 101+i, got.redundant, p)
			}
			bugs.Add(c.name, got.bugs)
		}
	}
	t.Logf("%d programs drawn, %d compared, %d traces; %s", drawn, compared, traces, &bugs)
}
