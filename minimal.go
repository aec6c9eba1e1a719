package weft

import (
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/minimize"
	"weft.dev/weft/internal/report"
	"weft.dev/weft/internal/runtime"
)

// minimal searches, within minimize.DefaultBudget, for an execution of the
// bug of f with fewer goroutine switches than the one the exploration
// found, replaying schedules with run: an interleaving that switches less
// is easier to follow.
func minimal(f runtime.Found, run func(sched []engine.Choice, trace bool) *runtime.Report) minimize.Result {
	replayed := func(sched []engine.Choice) (*engine.Bug, []engine.Choice) {
		rep := run(sched, false)
		if rep.Internal != "" || len(rep.Bugs) == 0 {
			return nil, nil
		}
		return rep.Bugs[0].Bug, rep.Bugs[0].Schedule
	}
	return minimize.Schedule(f.Schedule, f.Bug, replayed, minimize.DefaultBudget)
}

// traceOf describes the replayed execution rt of m's schedule.
func traceOf(rt *runtime.Trace, m minimize.Result) *report.Trace {
	t := report.New(rt)
	if m.Minimized() {
		t.Minimized = &report.Minimized{Switches: m.Switches, Original: m.Original}
	}
	return t
}
