package rewritten

import (
	goruntime "runtime"

	"weft.dev/weft/internal/runtime"
)

// Go runs a finalizer or a cleanup, if ever, on a goroutine of its own
// after a collection finds its object unreachable: for code that weft test
// rewrote, after the execution that made the object has ended, where its
// operations on weft's channels and sync objects are outside any check
// (patrickmn/go-cache's finalizer stops its janitor goroutine by a send,
// which panicked, and ended the test binary). A finalizer that never runs
// is one of the behaviours Go allows, and the one a check gives the
// objects of its executions; a goroutine leak names the first finalizer
// dropped, which might have stopped the goroutines.

// SetFinalizer is runtime.SetFinalizer. Inside a check, the finalizer is
// dropped (an earlier one of obj's too), after runtime's checks of obj.
func SetFinalizer(obj any, finalizer any) {
	if runtime.Outside() {
		goruntime.SetFinalizer(obj, finalizer)
		return
	}
	goruntime.SetFinalizer(obj, nil)
	if finalizer != nil {
		runtime.DropFinalizer()
	}
}

// AddCleanup is runtime.AddCleanup. Inside a check, the cleanup is
// dropped: the Cleanup returned stops nothing.
func AddCleanup[T, S any](ptr *T, cleanup func(S), arg S) goruntime.Cleanup {
	if runtime.Outside() {
		return goruntime.AddCleanup(ptr, cleanup, arg)
	}
	runtime.DropFinalizer()
	return goruntime.Cleanup{}
}

// NumGoroutine is runtime.NumGoroutine: inside a check, the execution's
// goroutines that have not ended, and the test binary's main goroutine,
// not the goroutines of weft's that run the check (see the runtime's
// NumGoroutine).
func NumGoroutine() int { return runtime.NumGoroutine() }
