// Package replay is the engine that re-runs exactly one execution from its
// schedule: the goroutine (and outcome) of every step. It reports the
// program's nondeterminism when the schedule no longer fits the program.
package replay

import (
	"fmt"
	"slices"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/interleave"
)

// Engine replays one schedule.
type Engine struct {
	m     interleave.Machine
	sched []engine.Choice
	pos   int
	began bool
}

// New returns an engine that replays sched once, with symbolic values
// configured by c (nil when there are none).
func New(sched []engine.Choice, c *concolic.Config) *Engine {
	e := &Engine{sched: sched}
	e.m.Sym.Config = c
	return e
}

// Begin implements engine.Engine.
func (e *Engine) Begin(x *engine.Exec) bool {
	if e.began {
		return false
	}
	e.began = true
	e.m.Reset()
	x.Model = &e.m.Sym.Model
	return true
}

// Step implements engine.Engine.
func (e *Engine) Step(x *engine.Exec) engine.Decision {
	if e.pos >= len(e.sched) {
		for _, g := range x.G {
			if g != nil && e.m.Enabled(x, g) {
				return diverged(fmt.Sprintf("the execution goes on after its %d recorded steps", len(e.sched)))
			}
		}
		return engine.Decision{Verdict: engine.Stop}
	}
	ch := e.sched[e.pos]
	if int(ch.G) >= len(x.G) || x.G[ch.G] == nil {
		return diverged(fmt.Sprintf("step %d belongs to goroutine g%d, which does not exist", e.pos, ch.G))
	}
	g := x.G[ch.G]
	if !e.m.Enabled(x, g) {
		return diverged(fmt.Sprintf("step %d: goroutine g%d cannot perform its %s", e.pos, ch.G, g.Pending.Kind))
	}
	if !e.possible(g, ch) {
		return diverged(fmt.Sprintf("step %d: goroutine g%d's %s cannot take outcome %d", e.pos, ch.G, g.Pending.Kind, ch.Alt))
	}
	e.pos++
	if b := e.m.Perform(x, g, ch); b != nil {
		return engine.Failed(ch, b)
	}
	return engine.Ran(ch)
}

// possible reports whether g's pending operation can take choice c.
// Symbolic outcomes are checked when taken, which needs no extra solver
// call.
func (e *Engine) possible(g *engine.Goroutine, c engine.Choice) bool {
	switch g.Pending.Kind {
	case event.SymNew, event.SymEval, event.SymChoose:
		return c.Alt >= 0 && c.With == 0
	}
	return slices.Contains(e.m.Options(g, nil), c)
}

// Done reports whether the whole schedule was replayed.
func (e *Engine) Done() bool { return e.pos == len(e.sched) }

func diverged(what string) engine.Decision {
	return engine.Failed(engine.Choice{G: -1}, &engine.Bug{
		Kind:    engine.Nondeterminism,
		Message: "the program did something different when the execution was replayed (" + what + "): " + engine.Unreplayable + ", a goroutine not started with weft.Go, or a replay token from another program?",
		G:       -1,
	})
}

// End implements engine.Engine.
func (e *Engine) End(*engine.Exec, engine.Ending) {}

// Spins implements engine.Awaiter.
func (e *Engine) Spins(_ *engine.Exec, g int32) bool { return e.m.Spins(g) }

// Clock implements engine.Orderer.
func (e *Engine) Clock(_ *engine.Exec, g int32) []int32 { return e.m.Clock(g) }

// Exhaustive implements engine.Engine.
func (e *Engine) Exhaustive() bool { return true }
