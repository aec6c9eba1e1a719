// Package timerhook lets weft/context set timers of weft/time's clock
// that the standard library has no counterpart of: a timer whose firing
// is the cancel it triggers, run by the clock goroutine itself, rather
// than a function on a goroutine of its own. weft/time sets Fire when it
// is initialized; weft/context, which imports weft/time, calls it.
package timerhook

import "time"

// Fire sets a timer of the running execution's clock that fires d from
// now, at any point after it was set, in the order of the deadlines, as
// every timer does. When it fires, the clock goroutine calls fire with the
// function that moves the clock to the timer's deadline; fire reports
// whether the timer fired (it called at once it had claimed the firing,
// before anything another goroutine can observe). A timer whose fire
// reports false does not move the clock: it had been stopped, by whatever
// fire reads.
var Fire func(d time.Duration, fire func(at func()) bool)

// MaxTicks is weft/time's MaxTicks, which the reports of package weft
// (imported by weft/time) read too.
const MaxTicks = 3
