package runtime

import (
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
)

var (
	// checkIDs numbers the checks of the process, for their executions'
	// epochs.
	checkIDs atomic.Uint32
	// checking counts the checks running: when none is, a goroutine that
	// is not a worker takes no part in one, and need not be classified.
	checking atomic.Int32
)

// Config configures one exploration.
type Config struct {
	Engine        engine.Engine
	MaxExecutions int           // 0: no limit
	Timeout       time.Duration // 0: no limit
	// Start is when the check started, which Timeout counts from: a
	// driver that explores a part of a check that others started has the
	// check's timeout, not what is left of it. Zero is now.
	Start    time.Time
	MaxSteps int  // operations per goroutine per execution
	AllBugs  bool // keep exploring after a bug
	Trace    bool // record a trace of every execution (for reports)
	// Concolic configures symbolic values (the same the engine has); nil
	// when the exploration has none.
	Concolic *concolic.Config
	// Progress, when set, is called about every interval with the
	// statistics so far.
	Progress         func(Stats)
	ProgressInterval time.Duration
	// StallTimeout bounds the time a goroutine of the program may run
	// without a weft operation before the watchdog abandons the execution
	// (see watchdog.go): 0 is DefaultStallTimeout, negative is no bound.
	StallTimeout time.Duration
	// Wrapped says that the body is a test that weft test made a check
	// of, which need not perform any operation (see Report.Unmodelled).
	Wrapped bool
	// Names, when set, are the ids of the goroutines and variables met so
	// far, for an engine that continues another's exploration; nil starts
	// afresh. Run extends them.
	Names *Names
	// Locals, when set, holds the values of CheckLocal that the drivers
	// of one check share (the parts of a parallel exploration), which
	// whoever made it closes; nil gives the driver its own, closed when
	// it ends.
	Locals *Locals
	// Between, when set, is called between two executions, before the
	// engine's Begin, with the statistics so far, on the driver's
	// goroutine or on the coroutine whose goroutine ended the execution
	// (see driver.again): no goroutine of an execution runs meanwhile. It
	// may split the engine (engine.Splitter), and it returns false to end
	// the exploration there, not exhaustive.
	Between func(Stats) bool
}

// Stats are the running totals of an exploration.
type Stats struct {
	Executions int
	Complete   int
	Blocked    int
	Dropped    int // abandoned by the engine; not executions
	Elapsed    time.Duration
	Steps      int // operations in the last execution
}

// Found is a bug with what it takes to reproduce it.
type Found struct {
	Bug      *engine.Bug
	Schedule []engine.Choice
	Trace    *Trace // when Config.Trace is set
}

// Report is the outcome of an exploration.
type Report struct {
	Stats
	Bugs []Found
	// Ended says that the engine had no execution left, and Exhaustive
	// that it then had explored every one: a sampling engine ends
	// without.
	Ended, Exhaustive bool
	// Internal is set when weft itself failed (a bug of weft, not of the
	// program): the panic and its stack.
	Internal string
	// Unmodelled says that the first execution performed no operation,
	// and that goroutines weft does not run started while it ran (see
	// othersCreated).
	Unmodelled bool
}

// DefaultMaxSteps is the default number of operations a goroutine may
// perform in one execution.
const DefaultMaxSteps = 100_000

// Run explores body with cfg.Engine until the engine has no execution left,
// a limit is reached, or (unless cfg.AllBugs) a bug is found. It returns
// even when a goroutine of the program never hands the turn back (see
// watchdog.go).
func Run(body func(), cfg Config) *Report {
	checking.Add(1)
	defer checking.Add(-1)
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.ProgressInterval <= 0 {
		cfg.ProgressInterval = 250 * time.Millisecond
	}
	if cfg.Names == nil {
		cfg.Names = NewNames()
	}
	d := &driver{cfg: cfg, body: body, id: checkIDs.Add(1), names: cfg.Names, start: cfg.Start, seen: map[string]bool{}, wake: make(chan struct{}, 1), locals: cfg.Locals}
	if d.locals == nil {
		d.locals = &Locals{}
	}
	if d.vars = takeVars(); d.vars != nil {
		defer d.vars.release()
	}
	if d.start.IsZero() {
		d.start = time.Now()
	}
	d.lastProgress = d.start
	done := make(chan struct{})
	GoInternal(func() { d.main(done) })
	if r := d.watch(done); r != nil {
		// The execution was abandoned: its goroutines, and the driver, are
		// left where they are.
		r.Elapsed = time.Since(d.start)
		return r
	}
	d.report.Elapsed = time.Since(d.start)
	return &d.report
}

// phase is where the driver is in an execution's life.
type phase uint8

const (
	phaseBetween  phase = iota // no execution runs
	phaseRunning               // goroutines of x run
	phaseAborting              // x is over; its parked goroutines are unwound
)

// driver runs the executions of one exploration. Its loop can be resumed on
// a fresh goroutine if a goroutine of the program kills it with
// runtime.Goexit.
//
// Run's goroutine watches it (watchdog.go) and may abandon it: the driver
// then stops at the first chance it gets. It publishes a new execution in
// live under mu, which the watchdog holds to abandon it.
type driver struct {
	cfg  Config
	body func()
	id   uint32 // of the check, in the process
	// n numbers the executions of the check, for their epochs.
	n uint32
	// live is the execution whose goroutines run, for the watchdog.
	live atomic.Pointer[execution]
	// epoch is that of the execution whose goroutines run, 0 between
	// executions: other checks read it to know whether an object bound to
	// it is in use (see execution.claim).
	epoch atomic.Uint64
	names *Names
	// fiber is the driver's goroutine when it waits for the execution's
	// goroutines; want is the fiber whose turn it is (see switchTo).
	fiber fiber
	want  *fiber
	// stopping is set when the check is over and its workers end.
	stopping bool
	idle     []*worker
	// ended holds the workers whose coroutines ended in the middle of
	// the check, which wait for it to end (see worker.end).
	ended []*worker
	freeG []*goroutine
	// handles is the slab of Go's handles: its array is replaced, never
	// reused, when full, since handles may outlive their execution.
	handles      []Handle
	x            *execution
	phase        phase
	report       Report
	seen         map[string]bool // bugs reported, with WithAllBugs
	start        time.Time
	lastProgress time.Time
	done         bool
	// coroutines counts its workers' coroutines that run, and clean is
	// how many other goroutines ran when the stacks last showed none that
	// escaped the checker, 0 before (see escaped).
	coroutines atomic.Int32
	clean      int
	// others is othersCreated at the start of the first execution.
	others uint64
	// late is set by the watchdog once the timeout has passed (see
	// engine.Exec.Late).
	late atomic.Bool
	// vars is the copy of the rewritten packages' variables that each
	// execution starts from (see RegisterVars), nil if they have none.
	vars *varsSnapshot
	// stray holds the first message about a weft operation called from a
	// goroutine that weft does not run.
	stray atomic.Pointer[string]
	// wake tells the watchdog that stray was set.
	wake chan struct{}
	// beat is set by the watchdog and cleared by the next operation: the
	// only cost of the watchdog on the operations (a load, and a store once
	// per tick).
	beat atomic.Uint32
	// abandoned is set, under mu, when the watchdog gives the exploration
	// up.
	abandoned atomic.Bool
	mu        sync.Mutex
	// unwinding is set while the driver unwinds an execution whose outcome
	// (x.ending) is decided.
	unwinding atomic.Bool
	// locals holds the values of CheckLocal: cfg.Locals, or the
	// driver's own.
	locals *Locals
}

// Locals holds the values of CheckLocal of one check.
type Locals struct {
	mu sync.Mutex
	m  map[any]any
	// kept says that a driver that used them was abandoned, whose
	// goroutines may still use them: Close leaves them open.
	kept bool
}

// Close closes the values that are io.Closers, unless a driver that used
// them was abandoned.
func (l *Locals) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.kept {
		for _, v := range l.m {
			if c, ok := v.(io.Closer); ok {
				c.Close()
			}
		}
	}
	l.m = nil
}

// keep marks the values as used by an abandoned driver: Close leaves
// them open.
func (l *Locals) keep() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.kept = true
}

// main runs the loop, then stops the idle workers.
func (d *driver) main(done chan struct{}) {
	defer close(done)
	defer func() {
		if r := recover(); r != nil {
			// The engine failed between two executions (Begin, End): a
			// bug of weft's, which ends the check with an internal error
			// instead of crashing the process the check runs in.
			d.internalError(fmt.Sprintf("%v\n%s", r, debug.Stack()))
		}
		if !d.abandoned.Load() {
			d.stop()
			if d.cfg.Locals == nil {
				d.locals.Close()
			}
		} else {
			d.locals.keep()
		}
	}()
	d.loop()
}

// CheckLocal returns the value that the running check holds under key,
// made by mk at the first call in the check: state that the executions of
// one check share and that no other check sees (package ic's analyses). A
// value that is an io.Closer is closed when the check ends. The parts of a
// parallel exploration share the values (see Config.Locals), and call it
// at once.
func CheckLocal(key any, mk func() any) any {
	x, _ := running("weft")
	l := x.d.locals
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.m[key]; ok {
		return v
	}
	v := mk()
	if l.m == nil {
		l.m = map[any]any{}
	}
	l.m[key] = v
	return v
}

// stop ends the coroutines of the idle workers, and of those that ended
// in the middle of the check (see worker.end). A worker that ends wakes
// the fiber parked in its slot, which may be another worker: that one
// passes the turn back to the driver (see switchTo), or ends at once when
// the end is a panic, and the others end when their turn comes.
func (d *driver) stop() {
	d.stopping = true
	for _, w := range append(d.idle, d.ended...) {
		if !w.over {
			d.endWorker(w)
		}
	}
}

// endWorker hands the turn to w, which ends, until it comes back.
func (d *driver) endWorker(w *worker) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(slotClosed); !ok {
				panic(r)
			}
		}
	}()
	d.switchTo(&d.fiber, &w.fiber)
}

func (d *driver) loop() {
	for !d.done {
		if d.abandoned.Load() {
			return
		}
		switch d.phase {
		case phaseBetween:
			if !d.begin() {
				d.done = true
				break
			}
			d.phase = phaseRunning
		case phaseRunning:
			d.drive()
			if d.phase == phaseRunning {
				d.phase = phaseAborting
			}
		case phaseAborting:
			d.abort()
			if d.abandoned.Load() {
				return
			}
			d.finish()
			d.phase = phaseBetween
		}
	}
}

// begin starts the next execution, if any.
func (d *driver) begin() bool {
	if d.cfg.MaxExecutions > 0 && d.report.Executions >= d.cfg.MaxExecutions {
		return false
	}
	if d.cfg.Timeout > 0 && time.Since(d.start) >= d.cfg.Timeout {
		return false
	}
	if d.cfg.Between != nil && !d.cfg.Between(d.report.Stats) {
		return false
	}
	x := d.x
	if x == nil {
		x = &execution{d: d, eng: d.cfg.Engine, maxSteps: int32(min(d.cfg.MaxSteps, 1<<30))}
		if !d.cfg.Trace {
			x.replayer, _ = x.eng.(engine.Replayer)
		}
		x.awaiter, _ = x.eng.(engine.Awaiter)
		_, x.sampler = x.eng.(engine.Sampler)
		_, cont := x.eng.(engine.Continuer)
		x.exec.Continue = d.cfg.AllBugs && cont && !d.cfg.Trace
		x.exec.Late = &d.late
		d.x = x
	}
	if d.vars != nil {
		d.vars.restore()
	}
	d.n++
	if d.n == 1 {
		d.others = othersCreated()
	}
	x.epoch = uint64(d.id)<<32 | uint64(d.n)
	x.exec.G = x.exec.G[:0]
	x.exec.Objects = x.exec.Objects[:0]
	x.exec.Last = -1
	x.gs = x.gs[:0]
	x.sched = x.sched[:0]
	x.cur, x.next, x.failed = nil, nil, nil
	x.unrun, x.picked = 0, nil
	x.over, x.aborting = false, false
	x.faulted, x.finalizer = nil, ""
	if len(x.cleanups) > 0 {
		// Those of a body that did not return.
		clear(x.cleanups)
		x.cleanups = x.cleanups[:0]
	}
	// The maps are empty in most executions: clear's call costs more
	// than the look at their length.
	if len(x.exhausted) > 0 {
		clear(x.exhausted)
	}
	if len(x.shadows) > 0 {
		clear(x.shadows)
	}
	x.mem.reset()
	x.mem.stacks = d.cfg.Trace
	if len(x.objs) > 0 {
		clear(x.objs)
	}
	if len(x.locals) > 0 {
		clear(x.locals)
	}
	x.ending = engine.Ending{}
	x.tracer = nil
	if d.cfg.Trace {
		x.tracer = newTracer()
	}
	if x.sampler {
		d.names.reset()
	}
	if !x.eng.Begin(&x.exec) {
		d.report.Ended = true
		d.report.Exhaustive = x.eng.Exhaustive()
		return false
	}
	d.mu.Lock()
	if d.abandoned.Load() {
		d.mu.Unlock()
		return false
	}
	d.unwinding.Store(false)
	d.live.Store(x)
	d.epoch.Store(x.epoch)
	d.mu.Unlock()
	if d.beat.Load() != 0 {
		d.beat.Store(0) // the driver moves on: progress, for the watchdog
	}
	main := x.newGoroutine(0, -1, d.body)
	if x.tracer != nil {
		x.tracer.spawn(main, Pos{})
	}
	x.next = main
	return true
}

// drive resumes goroutines as the execution directs until it is over.
func (d *driver) drive() {
	x := d.x
	for x.next != nil {
		g := x.next
		x.next = nil
		x.cur = g
		x.curID.Store(g.w.id)
		// The goroutines pass the turn from one to the next, and back to
		// the driver when none is next.
		d.switchTo(&d.fiber, &g.w.fiber)
		if d.abandoned.Load() || d.phase != phaseRunning {
			// The last goroutine of an execution began the next
			// ones itself (see again), and the exploration is over.
			return
		}
	}
	if !x.over {
		// Every goroutine returned or parked without deciding an outcome;
		// the engine must have been asked by the last one.
		x.stop()
	}
}

// again takes the driver's turn between two executions (abort, finish,
// begin) on worker w, whose goroutine, the last of the execution, ended
// it: when no goroutine of it is left to unwind and it found no bug (the
// driver records it), the next execution begins without the two coroutine
// switches to the driver and back, 2 of the 17 of a fib_bench execution.
// It reports true when w runs the body's goroutine of the new execution;
// false when the turn goes to the driver, which then ends the exploration
// if again ended the execution (see drive).
func (d *driver) again(w *worker) bool {
	x := d.x
	// While the driver unwinds x (abort), the turn must come back to
	// it: it goes on with the goroutines of x.
	if x.next != nil || !x.over || x.aborting || x.ending.Kind == engine.Buggy || d.abandoned.Load() {
		return false
	}
	for _, g := range x.gs {
		if g != nil && !g.exited {
			return false
		}
	}
	// The phases are the loop's: a panic of the engine in finish or
	// begin leaves the driver where they stopped.
	d.phase = phaseAborting
	d.abort()
	d.finish()
	d.phase = phaseBetween
	if d.done || !d.begin() {
		d.done = true
		return false
	}
	d.phase = phaseRunning
	h := x.next
	x.next = nil
	x.cur = h
	// allocWorker gave h the worker retired last: w.
	x.curID.Store(w.id)
	return true
}

// abort unwinds the goroutines still parked in the execution.
func (d *driver) abort() {
	x := d.x
	d.unwinding.Store(true)
	if d.abandoned.Load() {
		return
	}
	x.aborting = true
	for _, g := range x.gs {
		if g == nil || g.exited || g.w == nil {
			continue
		}
		if !g.started {
			// Never run: nothing to unwind.
			g.exited = true
			d.retire(g)
			continue
		}
		x.cur = g
		x.curID.Store(g.w.id)
		// It unwinds, retires its worker and hands the turn back.
		d.switchTo(&d.fiber, &g.w.fiber)
		if d.abandoned.Load() {
			return
		}
	}
	d.live.Store(nil)
	d.epoch.Store(0)
}

// finish accounts for the execution that just ended.
func (d *driver) finish() {
	x := d.x
	r := &d.report
	x.eng.End(&x.exec, x.ending)
	steps := 0
	for _, g := range x.gs {
		if g != nil {
			steps += int(g.Steps)
			d.freeG = append(d.freeG, g)
		}
	}
	r.Steps = steps
	if d.n == 1 && steps <= 1 && len(x.gs) == 1 && x.ending.Kind == engine.Completed && !d.cfg.Wrapped {
		// Nothing but the end of the body's goroutine.
		r.Unmodelled = othersCreated() > d.others
	}
	switch x.ending.Kind {
	case engine.Completed:
		r.Executions++
		r.Complete++
	case engine.Assumed:
		r.Executions++
		r.Blocked++
	case engine.Buggy:
		r.Executions++
		r.Complete++
		if x.faulted == nil {
			// After a fault, the execution's bugs were reported as they
			// came, and the ending may be due to a stopped goroutine.
			d.found(x)
		}
	case engine.Dropped:
		r.Dropped++
	}
	if d.cfg.Progress != nil && time.Since(d.lastProgress) >= d.cfg.ProgressInterval {
		d.lastProgress = time.Now()
		s := r.Stats
		s.Elapsed = time.Since(d.start)
		d.cfg.Progress(s)
	}
}

// found records the bug of x.
func (d *driver) found(x *execution) {
	b := x.ending.Bug
	if b.NoReplay {
		// The program escaped weft's control: exploring it further is
		// meaningless.
		d.done = true
	}
	if d.cfg.AllBugs && d.seen[bugKey(b)] {
		return
	}
	var sched []engine.Choice
	switch s, ok := x.eng.(engine.Scheduler); {
	case b.NoReplay:
		// Nothing replays it: no schedule, which costs an engine time
		// quadratic in the length of the execution (one cut by a
		// timeout may be long).
	case ok:
		sched = s.Schedule(&x.exec)
		if x.failed != nil {
			sched = append(sched, *x.failed)
		}
	default:
		sched = append([]engine.Choice(nil), x.sched...)
	}
	var trace *Trace
	if x.tracer != nil {
		trace = x.tracer.finish(x)
	}
	d.record(b, sched, trace)
}

// bugKey identifies a bug among those reported.
func bugKey(b *engine.Bug) string { return b.Kind.String() + "\x00" + b.Message }

// record reports the bug b, reached by the schedule sched: once, with
// WithAllBugs; else it ends the exploration.
func (d *driver) record(b *engine.Bug, sched []engine.Choice, trace *Trace) {
	if d.cfg.AllBugs {
		if d.seen[bugKey(b)] {
			return
		}
		d.seen[bugKey(b)] = true
	} else {
		d.done = true
	}
	d.report.Bugs = append(d.report.Bugs, Found{Bug: b, Schedule: d.x.canonical(sched), Trace: trace})
}

// internalError stops the exploration on a failure of weft itself.
func (d *driver) internalError(msg string) {
	if d.report.Internal == "" {
		d.report.Internal = msg
	}
	d.done = true
}

func (d *driver) allocWorker() *worker {
	if n := len(d.idle); n > 0 {
		w := d.idle[n-1]
		d.idle = d.idle[:n-1]
		return w
	}
	return newWorker(d)
}

func (d *driver) allocGoroutine() *goroutine {
	if n := len(d.freeG); n > 0 {
		g := d.freeG[n-1]
		d.freeG = d.freeG[:n-1]
		// The array of spawn steps is kept: a goroutine that spawns
		// grew it in every execution.
		steps := g.spawnSteps[:0]
		*g = goroutine{}
		g.spawnSteps = steps
		return g
	}
	return &goroutine{}
}

// retire returns the worker of an exited goroutine to the pool.
func (d *driver) retire(g *goroutine) {
	if w := g.w; w != nil && !w.dead {
		d.idle = append(d.idle, w)
	}
	g.w = nil
}
