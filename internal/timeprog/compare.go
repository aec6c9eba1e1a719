// Package timeprog cross-checks the engines on programs with virtual time:
// Compare explores a body with dfs and with condpor and says where they
// disagree, and Generate draws small random programs with timers, sleeps,
// time.After in selects, Timer.Stop and Reset, AfterFunc, tickers and
// context cancels, channel operations and asserts on what was received,
// to compare them on (TestRandomPrograms; WEFT_TIMEPROG=N runs N).
package timeprog

import (
	"fmt"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/condpor"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/internal/smt"
	"weft.dev/weft/internal/sym"
)

// Explored is what one exploration of a body found.
type Explored struct {
	Executions int
	Complete   int
	Classes    map[uint64]int          // complete executions without a bug, by class
	Kinds      map[engine.BugKind]bool // of the bugs found, going on past them
	Exhaustive bool
	// WaitAtEnd counts, by the kind of operation waited in, the
	// goroutines still waiting when a complete execution ended (dfs's
	// only; see ends).
	WaitAtEnd map[event.Kind]int

	eng engine.Engine
}

// Comparison is what dfs and condpor found on one body.
type Comparison struct {
	DFS, CondPOR *Explored
}

// Compare explores body with dfs (at most limit executions) and with
// condpor, both going on past bugs, condpor checking every graph it runs.
func Compare(body func(), limit int) (*Comparison, error) {
	d, err := explore(body, limit, func(conc *concolic.Config, on func(uint64)) engine.Engine {
		e := &ends{Engine: dfs.New(engine.Config{Concolic: conc}).(*dfs.Engine)}
		e.OnComplete = on
		return e
	})
	if d != nil {
		d.WaitAtEnd = d.eng.(*ends).waits
	}
	if err != nil {
		return nil, fmt.Errorf("dfs: %w", err)
	}
	c, err := explore(body, 0, func(conc *concolic.Config, on func(uint64)) engine.Engine {
		e := condpor.New(engine.Config{Concolic: conc}).(*condpor.Engine)
		e.Verify = true
		e.OnComplete = on
		return e
	})
	if err != nil {
		return nil, fmt.Errorf("condpor: %w", err)
	}
	return &Comparison{DFS: d, CondPOR: c}, nil
}

// Problems lists where condpor disagrees with dfs: the bug kinds found,
// and, when dfs was exhaustive and found no bug, the classes of complete
// executions (condpor must explore each of dfs's exactly once).
func (c *Comparison) Problems() []string {
	var ps []string
	if !c.DFS.Exhaustive {
		return nil
	}
	if fmt.Sprint(c.DFS.Kinds) != fmt.Sprint(c.CondPOR.Kinds) {
		ps = append(ps, fmt.Sprintf("bug kinds: dfs %v, condpor %v", c.DFS.Kinds, c.CondPOR.Kinds))
	}
	for k, n := range c.DFS.WaitAtEnd {
		if !recv(k) {
			ps = append(ps, fmt.Sprintf("%d complete executions end with a goroutine waiting in %v", n, k))
		}
	}
	if len(c.DFS.Kinds) > 0 {
		return ps
	}
	twice, missed, unseen := 0, 0, 0
	for k, n := range c.CondPOR.Classes {
		if n > 1 {
			twice++
		}
		if c.DFS.Classes[k] == 0 {
			unseen++
		}
	}
	for k := range c.DFS.Classes {
		if c.CondPOR.Classes[k] == 0 {
			missed++
		}
	}
	if twice+missed+unseen > 0 {
		ps = append(ps, fmt.Sprintf("classes: dfs %d, condpor %d complete executions: %d explored twice, %d missed, %d dfs never saw",
			len(c.DFS.Classes), c.CondPOR.Complete, twice, missed, unseen))
	}
	return ps
}

func explore(body func(), limit int, mk func(*concolic.Config, func(uint64)) engine.Engine) (*Explored, error) {
	s, err := smt.New("builtin")
	if err != nil {
		return nil, err
	}
	defer s.Close()
	conc := &concolic.Config{Table: sym.NewTable(), Solver: s}
	x := &Explored{Classes: map[uint64]int{}, Kinds: map[engine.BugKind]bool{}}
	eng := mk(conc, func(c uint64) { x.Classes[c]++ })
	x.eng = eng
	rep := runtime.Run(body, runtime.Config{Engine: eng, Concolic: conc, MaxExecutions: limit, AllBugs: true})
	if rep.Internal != "" {
		return nil, fmt.Errorf("%s", rep.Internal)
	}
	for _, f := range rep.Bugs {
		x.Kinds[f.Bug.Kind] = true
	}
	x.Executions, x.Complete, x.Exhaustive = rep.Executions, rep.Complete, rep.Exhaustive
	return x, nil
}

// ends is dfs, counting what the goroutines wait in at the end of its
// complete executions. Only a system goroutine may still wait then, and the
// only one, weft/time's clock, waits for a timer to be set, in a receive:
// it takes its mutex only to fire a timer or when woken, and every holder
// of that mutex (Stop, Reset, setting a timer, a firing) runs to its
// Unlock without waiting (its sends and receives have a default or room),
// so no execution ends with the clock waiting for it; and it releases a
// sleeper's semaphore before any other goroutine can wait on it forever.
// Class hashes name the operations an execution performed, not those its
// goroutines wait to perform, so a goroutine waiting on a mutex or a
// semaphore at the end, which condpor's graphs and dfs's interleavings
// would describe differently, is what Problems reports.
type ends struct {
	*dfs.Engine
	waits map[event.Kind]int
}

// End implements engine.Engine.
func (e *ends) End(x *engine.Exec, end engine.Ending) {
	if end.Kind == engine.Completed {
		for _, g := range x.G {
			if g != nil && g.Status != engine.Ended {
				if e.waits == nil {
					e.waits = map[event.Kind]int{}
				}
				e.waits[g.Pending.Kind]++
			}
		}
	}
	e.Engine.End(x, end)
}

// recv reports whether k is an operation that waits in a receive.
func recv(k event.Kind) bool {
	return k == event.ChanRecv || k == event.ChanWait || k == event.Select
}
