package weft

import (
	"fmt"
	"unsafe"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/runtime"
)

// Goroutine is a modelled goroutine.
type Goroutine struct{ h runtime.Handle }

// Go converts the runtime's *Handle to a *Goroutine: the build fails here
// if a Goroutine ever holds more than its Handle.
var _ = [1]struct{}{}[unsafe.Sizeof(Goroutine{})-unsafe.Sizeof(runtime.Handle{})]

// Go starts f on a new modelled goroutine: `go f()` under the checker.
// Outside any check, where code that weft test rewrote runs at package
// initialization and in TestMain, it starts f on a goroutine of plain Go,
// which nothing models and Join cannot wait for.
func Go(f func()) *Goroutine {
	if h := runtime.Go(f); h != nil {
		// A Goroutine is its Handle: the runtime's slab of handles
		// spares an allocation per goroutine.
		return (*Goroutine)(unsafe.Pointer(h))
	}
	go f()
	return &Goroutine{}
}

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

// Yield ends an iteration of a spin loop, a loop that waits for a
// condition on shared memory:
//
//	for !ready.Load() {
//		weft.Yield()
//	}
//
// An iteration that only read (loads, a failed CompareAndSwap or TryLock)
// would repeat identically until another goroutine writes what it read, so
// weft does not run it again: the goroutine waits there, and the
// executions in which its loads see later writes are explored from those
// writes. A loop thus costs one execution per way it can end, not one per
// spin, and the executions cut at such a wait count as Blocked. A goroutine
// still waiting there when nothing can write what it read any more would
// spin forever: that is a Deadlock, or a GoroutineLeak once the body has
// returned.
//
// Use Yield only in loops whose iterations do nothing but read and test
// shared memory: a loop that also counts or bounds its iterations in a
// local variable, which weft does not see, would be cut short. Spin loops
// without Yield still work, with one execution per number of spins, up to
// WithMaxSteps operations per goroutine.
func Yield() { runtime.Yield() }
