// Package random is the sampling engine: it runs a number of executions,
// each choosing uniformly at random among the enabled operations. The same
// seed gives the same executions.
package random

import (
	"math/rand/v2"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/interleave"
)

// DefaultExecutions is how many executions run when the configuration does
// not say.
const DefaultExecutions = 1000

// Engine samples executions.
type Engine struct {
	m    interleave.Machine
	rng  *rand.Rand
	left int
	opts []engine.Choice
}

// New returns a random engine.
func New(c engine.Config) engine.Engine {
	n := c.Executions
	if n <= 0 {
		n = DefaultExecutions
	}
	e := &Engine{rng: rand.New(rand.NewPCG(c.Seed, 0x77656674)), left: n}
	e.m.Sym.Config = c.Concolic
	return e
}

// Begin implements engine.Engine.
func (e *Engine) Begin(x *engine.Exec) bool {
	if e.left == 0 {
		return false
	}
	e.left--
	e.m.Reset()
	x.Model = &e.m.Sym.Model
	return true
}

// Step implements engine.Engine.
func (e *Engine) Step(x *engine.Exec) engine.Decision {
	e.opts = e.opts[:0]
	for _, g := range x.G {
		if g == nil || !e.m.Enabled(x, g) {
			continue
		}
		e.opts = e.m.Options(g, e.opts)
	}
	if len(e.opts) == 0 {
		return engine.Decision{Verdict: engine.Stop}
	}
	ch := e.opts[e.rng.IntN(len(e.opts))]
	if b := e.m.Perform(x, x.G[ch.G], ch); b != nil {
		return engine.Failed(ch, b)
	}
	return engine.Ran(ch)
}

// End implements engine.Engine.
func (e *Engine) End(*engine.Exec, engine.Ending) {}

// Exhaustive implements engine.Engine: sampling never is.
// Spins implements engine.Awaiter.
func (e *Engine) Spins(_ *engine.Exec, g int32) bool { return e.m.Spins(g) }

// Clock implements engine.Orderer.
func (e *Engine) Clock(_ *engine.Exec, g int32) []int32 { return e.m.Clock(g) }

func (e *Engine) Exhaustive() bool { return false }
