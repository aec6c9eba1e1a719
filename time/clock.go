package time

import (
	"container/heap"
	"fmt"
	"math"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/sync"
)

// clock is the virtual clock of one execution and its timers.
type clock struct {
	mu  sync.Mutex   // guards what follows, and orders the operations on timers
	now atomic.Int64 // cur, for Now: only the clock goroutine stores it
	// wake wakes the clock goroutine when it is idle, with room for the
	// one value that may be on its way.
	wake *weft.Chan[struct{}]
	// cur is the clock: the deadline of the last timer that fired.
	cur     Duration
	pending timers // set and not fired yet: a heap by deadline
	seq     uint64 // timers set so far, to fire equal deadlines in order
	named   int    // timers named so far
	running bool   // the clock goroutine was started
	idle    bool   // it waits on wake: a timer set must wake it
}

// clocks holds the clock of the running execution.
var clocks runtime.Local[clock]

// kind is what a timer does when it fires.
type kind uint8

const (
	chanTimer kind = iota // NewTimer, After: sends on its channel
	ticker                // NewTicker, Tick: sends on its channel, and again every period
	funcTimer             // AfterFunc: runs its function on a new goroutine
	sleeper               // Sleep: wakes the sleeping goroutine
	hookTimer             // timerhook.Fire: its firing is a call on the clock goroutine
)

var kindNames = [...]string{chanTimer: "timer", ticker: "ticker", funcTimer: "timer", sleeper: "timer", hookTimer: "timer"}

// timer is a timer of one execution.
type timer struct {
	c      *clock
	kind   kind
	name   string // "timer#3", for traces
	when   Duration
	period Duration // a ticker's
	seq    uint64
	idx    int // in c.pending; -1 when not pending
	ch     *weft.Chan[Time]
	chID   int64                // ch's ID, for a ticker's runtime.Exhaust
	f      func()               // funcTimer's
	hook   func(at func()) bool // hookTimer's
	sleep  runtime.Obj          // sleeper's semaphore
	sent   bool                 // the clock sent on ch since it was last drained
	ticks  int                  // a ticker's firings
}

// timers is a heap of timers by deadline, then by the order they were set.
type timers []*timer

func (h timers) Len() int { return len(h) }
func (h timers) Less(i, j int) bool {
	return h[i].when < h[j].when || h[i].when == h[j].when && h[i].seq < h[j].seq
}
func (h timers) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *timers) Push(x any) {
	t := x.(*timer)
	t.idx = len(*h)
	*h = append(*h, t)
}
func (h *timers) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	t.idx = -1
	return t
}

// note sets the text of the calling goroutine's next operation in a trace.
func note(format string, args ...any) {
	if runtime.Tracing() {
		runtime.Note(fmt.Sprintf(format, args...))
	}
}

// at writes the virtual instant d, from Epoch.
func at(d Duration) string { return "+" + d.String() }

// newTimer returns a timer of the running execution's clock.
func newTimer(k kind, what string) *timer {
	return &timer{c: clocks.Get(what), kind: k, idx: -1}
}

// clockOf returns t's clock, which must be the running execution's.
func (t *timer) clockOf(what string) *clock {
	c := clocks.Get(what)
	if t == nil || t.c != c {
		panic("weft/time: " + what + " on a timer of another execution, or one not made by NewTimer, NewTicker or AfterFunc (a Timer or Ticker must not outlive the body that made it)")
	}
	return c
}

func (c *clock) lock(what string) {
	note("%s: lock the timers", what)
	c.mu.Lock()
}

func (c *clock) unlock(what string) {
	note("%s: unlock the timers", what)
	c.mu.Unlock()
}

// set schedules t to fire d from now. c.mu is held.
func (c *clock) set(t *timer, d Duration) {
	if t.name == "" {
		c.named++
		t.name = fmt.Sprintf("%s#%d", kindNames[t.kind], c.named)
	}
	d = max(d, 0)
	t.when = c.cur + d
	if t.when < c.cur {
		t.when = math.MaxInt64 // as Go does for deadlines beyond the end of time
	}
	t.seq = c.seq
	c.seq++
	heap.Push(&c.pending, t)
}

// remove unschedules t and reports whether it was pending. c.mu is held.
func (c *clock) remove(t *timer) bool {
	if t.idx < 0 {
		return false
	}
	heap.Remove(&c.pending, t.idx)
	return true
}

// drain receives, without waiting, the value the clock sent on t's
// channel, if any, so that none from before a Stop or Reset is received
// after it, and reports whether there was one. c.mu is held.
func (t *timer) drain(what string) bool {
	if !t.sent {
		return false
	}
	t.sent = false
	note("%s: drop what %s sent, if it was not received", what, t.name)
	return weft.Select(t.ch.RecvCase(nil, nil), weft.Default()) == 0
}

// arm schedules t to fire d from now; unless reset, t is new. It reports
// whether t was pending or had sent a value that was not received.
func (c *clock) arm(t *timer, d Duration, what string, reset bool) bool {
	c.lock(what)
	active := false
	if reset {
		active = c.remove(t)
		if t.drain(what) {
			active = true
		}
	}
	if t.kind == ticker {
		t.period = d
	}
	if t.kind == ticker && t.ticks >= MaxTicks {
		// Exhausted: it stays so, and a goroutine waiting for it is cut.
		c.unlock(what)
		return active
	}
	c.set(t, d)
	c.wakeUp(what)
	// The note goes on the unlock, after which the other goroutines see t
	// set: on the next operation, it would name whatever wakeUp does, or
	// nothing when that is nothing.
	note("%s: %s set to fire at %s, unlock the timers", what, t.name, at(t.when))
	c.mu.Unlock()
	return active
}

// wakeUp makes sure that the clock goroutine runs to fire what is set:
// it starts it, or wakes it if it is idle. c.mu is held.
func (c *clock) wakeUp(what string) {
	switch {
	case !c.running:
		c.running = true
		c.wake = weft.MakeChan[struct{}](1)
		note("start the clock")
		weft.Go(c.run)
	case c.idle:
		c.idle = false
		note("%s: wake the clock", what)
		c.wake.Send(struct{}{})
	}
}

// stop unschedules t and reports whether it was pending or had sent a
// value that was not received.
func (c *clock) stop(t *timer, what string) bool {
	c.lock(what)
	active := c.remove(t)
	if t.drain(what) {
		active = true
	}
	if t.kind == ticker && t.ticks >= MaxTicks {
		// A goroutine that waits for it now waits forever.
		runtime.Exhaust(t.chID, t.name, false)
	}
	c.unlock(what)
	return active
}

// run is the clock goroutine: it fires the timers in the order of their
// deadlines, each when the exploration says, and waits while none is set.
func (c *clock) run() {
	runtime.System()
	c.lock("the clock")
	for {
		if len(c.pending) == 0 {
			// Idle in the critical section of the last firing: a wait
			// of its own would race with every later operation on
			// timers.
			c.idle = true
			c.unlock("the clock")
			note("the clock waits for a timer to be set")
			c.wake.Recv()
			c.lock("the clock")
			continue
		}
		t := heap.Pop(&c.pending).(*timer)
		if t.kind == hookTimer {
			c.fireHook(t)
		} else {
			c.advance(t)
			c.fire(t)
		}
		if len(c.pending) > 0 {
			// Each firing is a critical section of its own.
			c.unlock("the clock")
			c.lock("the clock")
		}
	}
}

// advance moves the clock to t's deadline, as t fires. c.mu is held.
func (c *clock) advance(t *timer) {
	c.cur = max(c.cur, t.when)
	note("%s fires at %s", t.name, at(c.cur))
	c.now.Store(int64(c.cur))
}

// fireHook fires t, a hookTimer, unless its hook finds it stopped: then
// the clock stays where it is, as if t had been removed when it was
// stopped. c.mu is held.
func (c *clock) fireHook(t *timer) {
	note("%s is due at %s: fire it unless it was stopped", t.name, at(max(c.cur, t.when)))
	t.hook(func() { c.advance(t) })
}

// fire does what t does when it fires. c.mu is held.
func (c *clock) fire(t *timer) {
	switch t.kind {
	case sleeper:
		note("%s ends its Sleep", t.name)
		runtime.Do(&t.sleep, event.Label{Kind: event.SemRelease, OKind: event.Sem}, "the clock")
	case funcTimer:
		note("%s runs its func on a new goroutine", t.name)
		weft.Go(t.f)
	default:
		v := epoch.Add(t.when)
		note("%s sends %s on its channel (or drops it if full)", t.name, at(t.when))
		if weft.Select(t.ch.SendCase(v), weft.Default()) == 0 {
			t.sent = true
		}
		if t.kind != ticker {
			return
		}
		t.ticks++
		if t.ticks >= MaxTicks {
			runtime.Exhaust(t.chID, fmt.Sprintf("%s (weft explored its first %d ticks)", t.name, MaxTicks), true)
			return
		}
		c.set(t, t.period)
	}
}
