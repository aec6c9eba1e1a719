package time

import (
	"fmt"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/internal/timerhook"
)

// A Duration is the standard library's time.Duration.
type Duration = time.Duration

// A Time is the standard library's time.Time.
type Time = time.Time

// The standard library's units of Duration.
const (
	Nanosecond  = time.Nanosecond
	Microsecond = time.Microsecond
	Millisecond = time.Millisecond
	Second      = time.Second
	Minute      = time.Minute
	Hour        = time.Hour
)

// epoch is the instant at which every execution starts, 2000-01-01
// 00:00:00 UTC: Now returns it until a timer fires.
var epoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// MaxTicks is the number of times each ticker fires in an execution: weft
// explores the first MaxTicks ticks of a ticker only (see the package
// documentation).
const MaxTicks = timerhook.MaxTicks

// Now returns the current virtual time: the start of the execution (2000-01-01 00:00:00 UTC) plus the deadline of the
// last timer that fired. Outside any check, it returns that start.
func Now() Time {
	if runtime.Outside() {
		// Package initialization, TestMain (var t0 = time.Now() in
		// x/time's tests): before any execution, each of which starts
		// its clock there.
		return epoch
	}
	c := clocks.Get("time.Now")
	d := Duration(c.now.Load())
	if runtime.Tracing() {
		runtime.NoteDone(fmt.Sprintf("time.Now() = %s", at(d)))
	}
	return epoch.Add(d)
}

// Since returns the time elapsed since t: Now().Sub(t).
func Since(t Time) Duration { return Now().Sub(t) }

// Until returns the duration until t: t.Sub(Now()).
func Until(t Time) Duration { return t.Sub(Now()) }

// Sleep pauses the calling goroutine until a timer set for d fires: at
// least d of virtual time, and after every timer with an earlier deadline.
// A negative or zero duration returns at once.
func Sleep(d Duration) {
	if d <= 0 {
		runtime.Check("time.Sleep")
		return
	}
	t := newTimer(sleeper, "time.Sleep")
	t.c.arm(t, d, "Sleep", false)
	note("Sleep until %s fires at %s", t.name, at(t.when))
	runtime.Do(&t.sleep, event.Label{Kind: event.SemAcquire, OKind: event.Sem}, "time.Sleep")
}

// Timer is a single event: when it fires, the current time is sent on C,
// unless it was made by AfterFunc. Make one with NewTimer or AfterFunc.
type Timer struct {
	C *weft.Chan[Time]
	t *timer
}

// NewTimer returns a Timer that sends the current time on its channel
// after at least d.
func NewTimer(d Duration) *Timer {
	t := newTimer(chanTimer, "time.NewTimer")
	t.ch = weft.MakeChan[Time](1)
	t.c.arm(t, d, "NewTimer", false)
	return &Timer{C: t.ch, t: t}
}

// After waits for d to elapse and then sends the current time on the
// returned channel: NewTimer(d).C.
func After(d Duration) *weft.Chan[Time] { return NewTimer(d).C }

// AfterFunc waits for d to elapse and then calls f on its own goroutine.
// It returns a Timer whose Stop cancels the call; its C is nil.
func AfterFunc(d Duration, f func()) *Timer {
	if f == nil {
		panic("weft/time: AfterFunc with a nil function")
	}
	t := newTimer(funcTimer, "time.AfterFunc")
	t.f = f
	t.c.arm(t, d, "AfterFunc", false)
	return &Timer{t: t}
}

// Stop prevents the Timer from firing. It returns true if the call stops
// the timer, false if it had already fired and its value was received (or
// its function started), or it had been stopped. No value sent before Stop
// is received after it.
func (t *Timer) Stop() bool {
	c := t.t.clockOf("Timer.Stop")
	return c.stop(t.t, "Timer.Stop")
}

// Reset changes the timer to fire after d. It returns true if the timer
// had been active (see Stop), false if it had fired or been stopped. No
// value sent before Reset is received after it.
func (t *Timer) Reset(d Duration) bool {
	c := t.t.clockOf("Timer.Reset")
	return c.arm(t.t, d, "Timer.Reset", true)
}

// Ticker holds a channel that delivers ticks of a clock at intervals.
// Make one with NewTicker.
type Ticker struct {
	C *weft.Chan[Time]
	t *timer
}

// NewTicker returns a Ticker that sends the current time on its channel
// every d, dropping ticks for slow receivers. d must be positive. weft
// explores its first MaxTicks ticks (see the package documentation).
func NewTicker(d Duration) *Ticker {
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	t := newTimer(ticker, "time.NewTicker")
	t.ch = weft.MakeChan[Time](1)
	t.chID = runtime.MadeChan()
	t.c.arm(t, d, "NewTicker", false)
	return &Ticker{C: t.ch, t: t}
}

// Tick is NewTicker(d).C, for callers that never stop the ticker; it
// returns nil when d <= 0.
func Tick(d Duration) *weft.Chan[Time] {
	if d <= 0 {
		runtime.Check("time.Tick")
		return nil
	}
	return NewTicker(d).C
}

// Stop turns off the ticker: no tick is received after it.
func (t *Ticker) Stop() {
	c := t.t.clockOf("Ticker.Stop")
	c.stop(t.t, "Ticker.Stop")
}

// Reset stops the ticker and resets its period to d: the next tick comes
// d after now. d must be positive.
func (t *Ticker) Reset(d Duration) {
	if d <= 0 {
		panic("non-positive interval for Ticker.Reset")
	}
	c := t.t.clockOf("Ticker.Reset")
	c.arm(t.t, d, "Ticker.Reset", true)
}

func init() { timerhook.Fire = fireHook }

// fireHook sets a hookTimer for d (see timerhook.Fire).
func fireHook(d Duration, fire func(at func()) bool) {
	t := newTimer(hookTimer, "context.WithDeadline")
	t.hook = fire
	t.c.arm(t, d, "WithDeadline", false)
}
