package weft

import (
	"fmt"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/runtime"
)

// Goroutine is a modelled goroutine.
type Goroutine struct{ h runtime.Handle }

// Go starts f on a new modelled goroutine: `go f()` under the checker.
func Go(f func()) *Goroutine { return &Goroutine{runtime.Go(f)} }

// Join blocks until g's function has returned.
func (g *Goroutine) Join() { runtime.Join(g.h) }

// Assert reports an AssertionFailed bug when cond is false. The message is
// formatted as by fmt.Sprintf.
func Assert(cond bool, format string, args ...any) {
	if cond {
		runtime.Check("weft.Assert")
		return
	}
	runtime.Fail(engine.AssertionFailed, fmt.Sprintf(format, args...))
}

// Assume blocks the calling goroutine forever when cond is false. This is
// not a bug: the other goroutines run on and the bugs they reach are still
// reported, and the execution counts as Blocked (never as a Deadlock or a
// GoroutineLeak).
func Assume(cond bool) {
	if cond {
		runtime.Check("weft.Assume")
		return
	}
	runtime.Block()
}
