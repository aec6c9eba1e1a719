// Package random is the sampling engine: it runs a number of executions,
// each choosing uniformly at random among the enabled operations. The same
// seed gives the same executions.
//
// Execution k draws from a stream of random numbers of its own, seeded by
// the seed and k, so that the executions can be shared out (Split): any
// range of them runs the same on any worker or machine.
package random

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/interleave"
)

// DefaultExecutions is how many executions run when the configuration does
// not say.
const DefaultExecutions = 1000

// maxParts bounds how many parts the executions split into, each with an
// engine, names and a report of its own: 8,192 parts are the 256 that a
// sharded exploration cuts for each of 32 shards (more shards get fewer
// each).
const maxParts = 1 << 13

// Engine samples executions.
type Engine struct {
	m    interleave.Machine
	seed uint64
	src  rand.PCG
	rng  *rand.Rand
	// next is the number of the next execution and end that of the
	// first execution not the engine's; a part has at least grain.
	next, end, grain int
	opts             []engine.Choice
}

// New returns a random engine.
func New(c engine.Config) engine.Engine {
	n := c.Executions
	if n <= 0 {
		n = DefaultExecutions
	}
	return newPart(c, c.Seed, 0, n, (n+maxParts-1)/maxParts)
}

// newPart returns an engine that runs executions next to end-1.
func newPart(c engine.Config, seed uint64, next, end, grain int) *Engine {
	e := &Engine{seed: seed, next: next, end: end, grain: grain}
	e.rng = rand.New(&e.src)
	e.m.Sym.Config = c.Concolic
	return e
}

// Begin implements engine.Engine.
func (e *Engine) Begin(x *engine.Exec) bool {
	if e.next == e.end {
		return false
	}
	e.src.Seed(stream(e.seed, e.next))
	e.next++
	e.m.Reset()
	x.Model = &e.m.Sym.Model
	return true
}

// stream returns the seeds of execution k's stream: the outputs 2k+1 and
// 2k+2 of SplitMix64 started at seed, which make the streams of
// neighbouring executions unrelated (a PCG seeded with k and k+1 would
// start from neighbouring states).
func stream(seed uint64, k int) (uint64, uint64) {
	const gamma uint64 = 0x9e3779b97f4a7c15 // SplitMix64's increment
	s := seed + 2*uint64(k)*gamma + gamma
	return mix(s), mix(s + gamma)
}

// mix is SplitMix64's output function.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Step implements engine.Engine.
func (e *Engine) Step(x *engine.Exec) engine.Decision {
	e.opts = e.opts[:0]
	for _, g := range x.G {
		if g == nil || !e.m.Enabled(x, g) {
			continue
		}
		n := len(e.opts)
		e.opts = e.m.Options(g, e.opts)
		if len(e.opts)-n > 1 {
			// The outcomes of a symbolic operation come with the
			// model's first, and the model is the solver's, which
			// depends on the term ids of the part's table (a split
			// part's copy numbers its later terms apart from the
			// whole's): in their own order, the same draw picks the
			// same outcome in any part.
			slices.SortFunc(e.opts[n:], func(a, b engine.Choice) int {
				return cmp.Or(cmp.Compare(a.Alt, b.Alt), cmp.Compare(a.With, b.With))
			})
		}
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
func (e *Engine) Exhaustive() bool { return false }

// Spins implements engine.Awaiter.
func (e *Engine) Spins(_ *engine.Exec, g int32) bool { return e.m.Spins(g) }

// Clock implements engine.Orderer.
func (e *Engine) Clock(_ *engine.Exec, g int32) []int32 { return e.m.Clock(g) }

// Samples implements engine.Sampler.
func (e *Engine) Samples() {}

// Split implements engine.Splitter: it hands over the later half of the
// executions left, if each half has at least the engine's grain.
func (e *Engine) Split(c engine.Config) engine.Engine {
	half := (e.end - e.next) / 2
	if half < e.grain {
		return nil
	}
	n := newPart(c, e.seed, e.end-half, e.end, e.grain)
	e.end -= half
	return n
}
