package runtime

import (
	"fmt"
	"iter"
	"runtime"
	"runtime/debug"
	"strings"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
)

// abortSignal unwinds a goroutine of an abandoned execution. Only the
// runtime recovers it.
type abortSignal struct{}

// fiber is a goroutine that takes the turn: the driver's, or a worker's
// coroutine. A fiber that waits is parked in a pullSlot.
type fiber struct {
	at *pullSlot
}

// pullSlot is a coroutine of iter.Pull used as a place to wait: switching
// through it wakes the fiber parked in it and parks the caller there. A
// switch goes straight from one fiber to the next, one coroutine switch
// where resuming through the driver took two. Every worker brings its
// coroutine as a slot; since any fiber may switch through any slot, the
// fibers and the slots they wait in are shuffled as the turn goes round.
type pullSlot struct {
	next  func() (struct{}, bool)
	yield func(struct{}) bool
	// nextDue: the switch through it calls next, as iter.Pull requires
	// (next and yield alternate); else yield.
	nextDue bool
}

// slotClosed is the panic with which a worker whose coroutine ended in
// the middle of the check (see worker.end) ends when the check is over:
// the fiber parked in its slot, which the end wakes, would otherwise get
// the Goexit that ended it (iter.Pull passes it on). Only the driver's
// stop recovers it.
type slotClosed struct{}

// switchTo hands the turn from self, the calling fiber, to the fiber to,
// and returns when the turn comes back to self. A fiber woken while the
// turn is another's (the end of a worker woke it, see driver.stop) passes
// it on.
func (d *driver) switchTo(self, to *fiber) {
	d.want = to
	for {
		s := to.at
		self.at = s
		if s.nextDue {
			s.nextDue = false
			s.next()
		} else {
			s.nextDue = true
			s.yield(struct{}{})
		}
		if d.want == self {
			return
		}
		to = d.want
	}
}

// worker is a coroutine that runs modelled goroutines of one check, one
// after another.
type worker struct {
	fiber
	d    *driver
	g    *goroutine // the goroutine it runs, nil when idle
	id   int64      // the Go id of the coroutine, set before it registers
	dead bool       // the coroutine ended, or waits to (see end)
	over bool       // the coroutine ended
}

func newWorker(d *driver) *worker {
	w := &worker{d: d}
	s := &pullSlot{nextDue: true}
	w.at = s
	own.mu.Lock()
	defer own.mu.Unlock()
	own.created++
	s.next, _ = iter.Pull(func(yield func(struct{}) bool) {
		s.yield = yield
		w.id = goid()
		key := self()
		register(key, w)
		d.coroutines.Add(1)
		defer func() {
			// Also when a panic ends it early (see stop).
			w.over = true
			d.coroutines.Add(-1)
		}()
		// However the coroutine ends (stopped, or runtime.Goexit in the
		// program), the Go runtime must not reuse its descriptor for a
		// goroutine that the registry would take for a worker.
		defer unregister(key)
		defer w.end()
		if d.stopping {
			return
		}
		growStack(0)
		// The driver could not know id before this first switch.
		w.g.x.curID.Store(w.id)
		for {
			g := w.g
			g.run()
			w.g = nil
			if d.takeOver(w, g) {
				continue
			}
			d.retire(g)
			if d.again(w) {
				continue
			}
			w.handOff(g)
			if d.stopping {
				return
			}
		}
	})
	return w
}

// growStack grows the stack of a new worker's coroutine while it is still
// shallow: the Go runtime grows a stack by copying it and walking every
// frame, which on the deep stacks of the program's goroutines, in the
// middle of an operation, was a quarter of the instructions of
// explorations as short as BenchmarkPipeline's, each with workers of its
// own. Its frame of 8 KiB makes the stack 16 KiB at once, which most
// goroutines reach anyway; a frame of 16 KiB (a stack of 32 KiB) saved
// less.
//
//go:noinline
func growStack(i int) byte {
	var frame [8 << 10]byte
	return frame[i]
}

// end ends w's coroutine, stopped by the driver; or, in the middle of the
// check, when runtime.Goexit in the program ends the goroutine it runs
// (after its End, see goroutine.exit) or weft itself fails: the coroutine
// then waits for the check to end, the turn handed on, and ends with
// slotClosed.
func (w *worker) end() {
	d := w.d
	if d.stopping {
		w.dead = true
		d.want = &d.fiber
		return
	}
	r := recover()
	if d.abandoned.Load() {
		// Nothing of the execution may move: w waits forever, as the
		// rest of it does.
		select {}
	}
	w.dead = true
	d.ended = append(d.ended, w)
	to := &d.fiber
	if g := w.g; g != nil {
		if r != nil {
			d.internalError(fmt.Sprintf("%v\n%s", r, debug.Stack()))
			g.x.end(engine.Ending{Kind: engine.Dropped})
		}
		w.g = nil
		d.retire(g)
		to = w.successor(g)
	} else if r != nil {
		d.internalError(fmt.Sprintf("%v\n%s", r, debug.Stack()))
	}
	if to != nil {
		d.switchTo(&w.fiber, to)
	}
	d.want = &d.fiber
	panic(slotClosed{})
}

// takeOver runs on w, whose goroutine g just returned, the goroutine that
// the turn goes to next when it has not started (see spawn): its own
// worker, which has not run it, goes to the pool in place of w. The
// switch to that worker would be one of the 10 of a fib_bench
// execution. It reports whether w took it over.
func (d *driver) takeOver(w *worker, g *goroutine) bool {
	x := g.x
	c := x.next
	if c == nil || c.started {
		return false
	}
	g.w = nil
	c.w.g = nil
	d.idle = append(d.idle, c.w)
	c.w, w.g = w, c
	x.next = nil
	x.cur = c
	x.curID.Store(w.id)
	return true
}

// successor returns the fiber that the turn goes to when g, the goroutine
// of the calling worker, parks or ends: its spawner while g is being
// discovered, else the goroutine x.next (x.next is then cleared), else the
// driver. It returns nil when x.next is g itself, which goes on.
func (w *worker) successor(g *goroutine) *fiber {
	x := g.x
	if g.discovering {
		g.discovering = false
		return &x.spawner.w.fiber
	}
	h := x.next
	if h == nil {
		return &w.d.fiber
	}
	x.next = nil
	if h == g {
		return nil
	}
	x.cur = h
	x.curID.Store(h.w.id)
	return &h.w.fiber
}

// handOff passes the turn from w, whose goroutine g parks or ended, to
// its successor, and returns when w has the turn again. It is switchTo
// written out: a frame less on the stacks of the parked goroutines, which
// the Go runtime walks when it grows them.
func (w *worker) handOff(g *goroutine) {
	to := w.successor(g)
	if to == nil {
		return
	}
	d := w.d
	d.want = to
	for {
		s := to.at
		w.at = s
		if s.nextDue {
			s.nextDue = false
			s.next()
		} else {
			s.nextDue = true
			s.yield(struct{}{})
		}
		if d.want == &w.fiber {
			return
		}
		to = d.want
	}
}

// goroutine is a modelled goroutine of one execution.
type goroutine struct {
	engine.Goroutine
	x           *execution
	w           *worker
	fn          func()
	spawnFn     func()  // the function of the child being spawned
	children    int32   // goroutines spawned so far
	vars        int32   // symbolic variables created so far
	discovering bool    // runs until its first operation, then hands back to its spawner
	started     bool    // its function was called (see execution.spawn)
	returned    bool    // its function returned
	finished    bool    // performed its End
	exited      bool    // its function is over (returned, panicked, aborted)
	pos         Pos     // of Pending, when tracing
	spinReads   int32   // operations that only read since its last other one
	yields      int32   // calls of Yield since its last operation
	system      bool    // see System
	note        string  // for the trace of Pending (see Note)
	madeChan    int64   // the channel it made last (see MadeChan)
	spawnSteps  []int32 // the step of each of its spawns, by rank (see execution.canonical)
	rand        uint64  // the state of its sequence of Rand
	hb          []int32 // its clock (see execution.clockOf)
	hbAt        int32   // Steps+1 when hb was read, 0 if never
}

// run runs the goroutine's function on the current worker.
func (g *goroutine) run() {
	g.started = true
	g.x.unrun--
	defer g.exit()
	g.fn()
	if g.ID == 0 {
		g.x.runCleanups()
	}
	g.returned = true
	g.finish()
}

// finish performs the goroutine's End and hands the turn on.
func (g *goroutine) finish() {
	x := g.x
	if x.aborting || x.over || x.d.abandoned.Load() {
		return
	}
	g.op(&event.Label{Kind: event.End, Obj: -1})
	g.finished = true
	x.next = x.dispatch()
}

// exit ends the goroutine whichever way its function stopped. The goroutine
// counts as exited (its worker free or dead) only once exit is over: a
// goroutine ended by runtime.Goexit still performs its End from here, and
// may park in it.
func (g *goroutine) exit() {
	r := recover()
	x := g.x
	if x.d.abandoned.Load() {
		// The watchdog gave the execution up: nothing of it may move.
		g.exited = true
		return
	}
	if _, ok := r.(abortSignal); ok || x.aborting {
		g.exited = true
		return
	}
	if r == nil {
		if !g.returned {
			// runtime.Goexit in the program ends the goroutine, as in Go:
			// its deferred calls have run. The coroutine cannot survive it.
			g.w.dead = true
			g.goexit()
		}
		g.exited = true
		return
	}
	// Its failure's step may park: it counts as exited only after it.
	defer func() { g.exited = true }()
	if x.over {
		return
	}
	stack, at, internal := panicStack()
	if internal {
		// The panic comes from weft itself, not from the program.
		x.d.internalError(fmt.Sprintf("%v\n%s", r, debug.Stack()))
		x.end(engine.Ending{Kind: engine.Dropped})
		return
	}
	if x.tracer != nil {
		g.pos = at
	}
	g.failed(&engine.Bug{
		Kind:    engine.Panic,
		Message: fmt.Sprintf("g%d panicked: %v", g.ID, r),
		G:       g.ID,
		Stack:   stack,
	})
}

// failed ends the execution with b, the bug that ended goroutine g, or goes
// on without g (see engine.Continuer).
func (g *goroutine) failed(b *engine.Bug) {
	// It runs in exit, a deferred call: the abort of an execution that
	// ends while the failure's step waits must stop here (see goexit).
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(abortSignal); !ok {
				panic(r)
			}
		}
	}()
	if !g.failStep(b.Kind) {
		return
	}
	x := g.x
	if x.fault(b, nil) {
		x.next = x.dispatch()
		return
	}
	x.fail(b)
}

// failStep performs the step in which g fails, before the bug is reported:
// the real scheduler may run other goroutines between g's last operation and
// its failure, and their bugs may come first. It reports false when the
// execution is already over.
func (g *goroutine) failStep(kind engine.BugKind) bool {
	x := g.x
	if x.aborting || x.over || x.d.abandoned.Load() {
		return false
	}
	g.op(&event.Label{Kind: event.Fail, Obj: -1, Arg: int32(kind)})
	return !x.over
}

// goexit ends a goroutine that called runtime.Goexit: as a return, unless
// testing's FailNow (t.Fatal, t.FailNow...) called it, which is the test
// failing in this execution: a bug. Its End may park: exit sets exited
// only after it, so that the driver keeps the goroutine's worker meanwhile.
func (g *goroutine) goexit() {
	x := g.x
	if x.over {
		return
	}
	stack, at, failNow := goexitStack()
	if failNow {
		if x.tracer != nil {
			g.pos = at
		}
		who := fmt.Sprintf("g%d", g.ID)
		if g.ID == 0 {
			who = "the body (g0)"
		}
		g.failed(&engine.Bug{
			Kind:    engine.AssertionFailed,
			Message: who + " called t.FailNow (by t.Fatal, t.Fatalf or t.FailNow): the test fails in this execution; the test's log has its message",
			G:       g.ID,
			Stack:   stack,
		})
		return
	}
	// The End may park, and the execution end and be unwound meanwhile:
	// the abort's signal must stop here, or it would escape the coroutine
	// (iter.Pull hands it to the driver) as a panic of the driver.
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(abortSignal); !ok {
				panic(r)
			}
		}
	}()
	g.finish()
}

// park hands the turn on (see successor) until the goroutine is resumed.
func (g *goroutine) park() {
	g.w.handOff(g)
	if g.x.aborting {
		panic(abortSignal{})
	}
}

// op performs a visible operation of g, switching goroutines only when the
// engine picks another one. Its result is g's, until g's next operation:
// a copy at every level of the call was a tenth of the runtime's cost of a
// step.
func (g *goroutine) op(lab *event.Label) *event.Result {
	x := g.x
	if x.d.beat.Load() != 0 {
		x.d.beat.Store(0) // for the watchdog: an operation happened
	}
	g.Pending = *lab
	if x.tracer != nil && lab.Kind != event.Fail {
		// A failure's position is where the program failed, which the
		// caller knows.
		g.pos = callerPos()
	}
	if g.discovering {
		// Back to the spawner, which resumed it (see discover).
		g.park()
	} else {
		// The engine may perform the operation without a Step (see
		// engine.Replayer), g having performed the previous one, when
		// dispatch's own checks (the step limit, a look at the clock, a
		// stray goroutine) would not stop g.
		// A goroutine that Replay picked before it started: its first
		// operation is Replay's to perform.
		last := x.exec.Last == g.ID
		if x.picked == g {
			x.picked = nil
			last = true
		}
		t := int32(-1)
		if last && x.replayer != nil && g.Steps < x.maxSteps && (len(x.sched)+1)%longEvery != 0 && x.d.stray.Load() == nil {
			t = x.replayer.Replay(&x.exec, &g.Goroutine)
		}
		if t == g.ID {
			// g goes on.
			x.exec.Last = g.ID
			x.sched = append(x.sched, engine.Choice{G: g.ID})
			g.Steps++
			if lab.Kind == event.Spawn && !x.spawn(g, lab.Arg, true) {
				g.park() // the execution is over: the driver unwinds g
			}
		} else if t >= 0 {
			// g cannot go on: the engine performed the operation of the
			// goroutine that Step would have picked, or picked one that
			// has not started, which runs to its first operation.
			if h := x.gs[t]; !h.started {
				x.picked = h
				x.next = h
			} else {
				x.next = x.ran(engine.Choice{G: t}, nil, true)
			}
			g.park()
		} else if h := x.dispatch(); h != g {
			x.next = h
			g.park()
		}
	}
	g.yields = 0
	if event.ReadOnly(lab, &g.Result) {
		g.spinReads++
	} else {
		g.spinReads = 0
	}
	return &g.Result
}

// blockForever parks g for the rest of the execution after its Block.
func (g *goroutine) blockForever() {
	x := g.x
	x.next = x.dispatch()
	g.park()
	panic("weft: internal error: a blocked goroutine was resumed")
}

// panicStack returns the stack of the panicking goroutine from the frame
// that panicked to the goroutine's function, without the frames of the
// runtime and of weft, and the position of the innermost frame of the
// program; internal reports that the panic comes from weft's internal
// packages rather than from the program. It must be called from the
// deferred function that recovered.
func panicStack() (stack string, at Pos, internal bool) {
	var pcs [64]uintptr
	n := runtime.Callers(1, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	var b strings.Builder
	origin := false // the next frame is the one that panicked
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic" || f.Function == "runtime.sigpanic" || f.Function == "runtime.panicwrap":
			origin = true
			b.Reset()
			at, internal = Pos{}, false
			continue
		case origin && strings.HasPrefix(f.Function, "runtime."):
			continue // runtime helpers of the panic (panicmem, panicIndex...)
		case origin:
			internal = isInternal(f.Function)
		}
		origin = false
		if isProgramFrame(f) {
			if at.File == "" {
				at = Pos{Func: f.Function, File: f.File, Line: f.Line}
			}
			fmt.Fprintf(&b, "%s\n\t%s:%d\n", f.Function, f.File, f.Line)
		}
		if !more {
			return b.String(), at, internal
		}
	}
}

// goexitStack returns the stack of a goroutine that runtime.Goexit ends,
// from the frame that called it (or that called testing's FailNow) to the
// goroutine's function, the position of that frame, and whether a FailNow
// method (testing.(*common).FailNow, or that of another testing.TB) called
// Goexit. It must be called from a deferred function that Goexit runs.
func goexitStack() (stack string, at Pos, failNow bool) {
	var pcs [64]uintptr
	n := runtime.Callers(1, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	var b strings.Builder
	origin := false // the next frames are the callers of Goexit
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.Goexit":
			origin = true
			b.Reset()
			at, failNow = Pos{}, false
			continue
		case origin && (strings.HasPrefix(f.Function, "testing.") || strings.HasSuffix(f.Function, ".FailNow")):
			// testing's FailNow, and Fatal or Fatalf that call it; or the
			// FailNow of another testing.TB.
			if strings.HasSuffix(f.Function, ".FailNow") {
				failNow = true
			}
			continue
		}
		origin = false
		if isProgramFrame(f) {
			if at.File == "" {
				at = Pos{Func: f.Function, File: f.File, Line: f.Line}
			}
			fmt.Fprintf(&b, "%s\n\t%s:%d\n", f.Function, f.File, f.Line)
		}
		if !more {
			return b.String(), at, failNow
		}
	}
}
