package sync

import (
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
)

// Cond is a condition variable. Each Cond has a Locker L, which must be held
// when calling Wait.
//
// Signal wakes one waiting goroutine; the checker explores every choice of
// which one. Wait never wakes spuriously.
type Cond struct {
	_ noCopy
	// L is held while observing or changing the condition.
	L Locker
	n runtime.Obj
}

// NewCond returns a new Cond with Locker l.
func NewCond(l Locker) *Cond { return &Cond{L: l} }

// Wait atomically unlocks c.L and suspends the calling goroutine, then locks
// c.L again before returning, once woken by Signal or Broadcast. Calling it
// without holding c.L is a Misuse bug (unlock of an unlocked mutex).
func (c *Cond) Wait() {
	ticket := runtime.Do(&c.n, event.Label{Kind: event.NotifyAdd, OKind: event.Notify}, "Cond.Wait").V
	c.L.Unlock()
	runtime.Do(&c.n, event.Label{Kind: event.NotifyWait, OKind: event.Notify, A: ticket}, "Cond.Wait")
	c.L.Lock()
}

// Signal wakes one goroutine waiting on c, if there is any.
func (c *Cond) Signal() {
	runtime.Do(&c.n, event.Label{Kind: event.NotifyOne, OKind: event.Notify}, "Cond.Signal")
}

// Broadcast wakes all goroutines waiting on c.
func (c *Cond) Broadcast() {
	runtime.Do(&c.n, event.Label{Kind: event.NotifyAll, OKind: event.Notify}, "Cond.Broadcast")
}
