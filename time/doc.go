// Package time provides modelled counterparts of the timers and clock of
// the standard library's time package, in virtual time: Now, Since, Until,
// Sleep, After, AfterFunc, Tick, Timer and Ticker. Durations and instants
// are the standard library's own types (Duration and Time are aliases of
// time.Duration and time.Time). Swapping the import is all it takes to put
// a program with timeouts under the checker:
//
//	select {
//	case v := <-reply:                    // weft.Select(reply.RecvCase(&v, nil),
//	case <-time.After(time.Second):       //     time.After(time.Second).RecvCase(nil, nil))
//	}
//
// # Virtual time
//
// Time does not pass by itself. Every execution starts at the same instant
// (2000-01-01 00:00:00 UTC) and the clock moves only when a timer fires: it is then the
// timer's deadline. A timer set for d at clock c has the deadline c+d.
// Timers fire in the order of their deadlines (equal deadlines in the order
// they were set), each at any point of the execution after it was set: a
// timer is one more thing that happens concurrently with the goroutines,
// and every engine explores where among their operations it fires. Now
// returns the clock, which is thereby monotonic and consistent with what
// has fired: a goroutine that saw a timer fire reads a Now at or after its
// deadline. Sleep(d) is a timer that the sleeping goroutine waits for: it
// ends after every timer with an earlier deadline has fired.
//
// When every goroutine waits and a timer is set, it fires: there is no
// deadlock while a timer can fire. A goroutine that waits for a timer that
// was stopped waits forever, a deadlock or a leak as usual. Timers still
// set when the program is over are not leaks, as in Go: they fire, or are
// dropped, with no one to notice.
//
// # Why this is sound, and what it over-approximates
//
// A real scheduler may run a goroutine arbitrarily late, and a timer that
// is due wakes its goroutine at some point after its deadline, never
// before. So every order, between a timer's firing and the operations of
// the goroutines that do not wait for it, is possible in the real program:
// weft explores them all. In particular a timeout that races a reply is
// explored both ways even when the replying goroutine never blocks, since
// the real one may be slow: this is deliberate, a timeout branch that
// "cannot happen" in a test happens in production. What weft leaves out is
// what depends on how long computation takes: the clock stands still
// between timers, so a deadline is computed from the clock of the last
// timer that fired, as if the program computed in no time. Orders of
// timers that only slow computation could swap (a timer set later with a
// shorter duration firing after one set earlier with a longer one) are
// not explored, nor are the different orders of timers with the same
// deadline. The values that Now returns are the deadlines of timers,
// never instants between them.
//
// The over-approximation is that firing is explored anywhere after the
// deadline was set, however long the wait: weft may report what needs an
// extremely slow goroutine. That is what timeouts are for.
//
// # Timers, tickers and their channels
//
// A Timer's channel has Go 1.23's semantics: after Stop or Reset returns,
// no value from before it is received, and Stop and Reset report true when
// the value that had fired was not received yet. The channel has a buffer
// of one (Len may be 1; since Go 1.23 it is always 0).
//
// A Ticker fires every period; a tick that finds the previous one still in
// the channel is dropped, as in Go. A ticker would fire forever, and every
// order of its ticks against the goroutines would have to be explored, so
// weft explores the first MaxTicks ticks of each ticker of an execution
// only. Then the ticker is exhausted: an execution in which a goroutine
// waits for its next tick ends there and counts as blocked (not a bug), like
// one cut by weft.Assume; it was not explored further. A ticker that is
// never stopped is no bug in itself: since Go 1.23 an unreferenced ticker is
// collected, stopped or not. Its consequence is: a goroutine that still
// waits for ticks of a ticker never stopped when the body has returned and
// every other goroutine waits too would run on its ticks, past the end of
// the test: weft reports it as a GoroutineLeak. A goroutine that waits on a
// ticker that was stopped waits forever: a deadlock or a leak.
//
// # What the engines see
//
// Timers are built out of operations that every engine already explores:
// a system goroutine, the clock, fires the timers one at a time in the
// order of their deadlines, under a modelled mutex that setting, stopping
// and resetting a timer also take; it waits on a modelled semaphore that
// setting a timer releases; Now is an atomic load of the clock, which the
// clock goroutine stores when a timer fires; a timer's channel is a
// weft.Chan to which the clock goroutine sends without blocking; AfterFunc's
// function runs on a goroutine that the clock goroutine starts, and Sleep
// waits on a semaphore of its own. The timer of a context of weft/context
// (WithDeadline, WithTimeout) is the exception: its firing is the cancel
// of the context, run by the clock goroutine in the firing's critical
// section, and a cancel that came first stops it, so that, when it comes
// due, it only reads that the context is canceled and the clock does not
// move (as for a Timer that was stopped). The trace of a bug names these
// operations by what they mean ("timer#3 fires at +2s"): the clock
// goroutine, started by the first timer of an execution, is listed among
// the goroutines, and times are written from the start of the execution. A program whose timers
// do not race with anything explores one execution; each operation of a
// program on a timer orders itself with the clock goroutine's firings, so
// timers set from several goroutines cost the orders of their settings
// with each other and with the firings.
package time
