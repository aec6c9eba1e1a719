package sync

import (
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/runtime"
)

// WaitGroup waits for a collection of goroutines to finish, with the
// standard library's algorithm (a counter and a waiter count in one atomic
// word, and a semaphore).
type WaitGroup struct {
	_     noCopy
	state atomic.Uint64 // high 32 bits: counter; low 32 bits: waiters
	sema  sema
}

// Add adds delta, which may be negative, to the counter. A negative counter
// is a Misuse bug.
func (wg *WaitGroup) Add(delta int) {
	state := wg.state.Add(uint64(delta) << 32)
	v := int32(state >> 32)
	w := uint32(state)
	if v < 0 {
		runtime.Fail(engine.Misuse, "sync: negative WaitGroup counter")
	}
	if w != 0 && delta > 0 && v == int32(delta) {
		runtime.Fail(engine.Misuse, "sync: WaitGroup misuse: Add called concurrently with Wait")
	}
	if v > 0 || w == 0 {
		return
	}
	// The counter is 0 and there are waiters: nobody may change the state
	// now but the waiters leaving.
	if wg.state.Load() != state {
		runtime.Fail(engine.Misuse, "sync: WaitGroup misuse: Add called concurrently with Wait")
	}
	wg.state.Store(0)
	for ; w != 0; w-- {
		wg.sema.release()
	}
}

// Done decrements the counter by one.
func (wg *WaitGroup) Done() { wg.Add(-1) }

// Wait blocks until the counter is zero.
func (wg *WaitGroup) Wait() {
	for {
		state := wg.state.Load()
		if int32(state>>32) == 0 {
			return
		}
		// Increment the waiters count.
		if wg.state.CompareAndSwap(state, state+1) {
			wg.sema.acquire()
			if wg.state.Load() != 0 {
				runtime.Fail(engine.Misuse, "sync: WaitGroup is reused before previous Wait has returned")
			}
			return
		}
	}
}

// Go calls f on a new modelled goroutine and adds that task to the
// WaitGroup; when f returns, the task is removed.
func (wg *WaitGroup) Go(f func()) {
	wg.Add(1)
	h := runtime.Go(func() {
		defer wg.Done()
		f()
	})
	if h == nil {
		runtime.Check("weft.Go") // outside a check: it panics
	}
}
