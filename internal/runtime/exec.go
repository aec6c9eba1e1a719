package runtime

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
)

// execution is the state of one run of the body.
type execution struct {
	d     *driver
	epoch uint64
	eng   engine.Engine
	// replayer is eng, if it replays operations without a Step, unless
	// the executions are traced: a trace records every step.
	replayer engine.Replayer
	// awaiter is eng, if it tells spinning goroutines (see stop).
	awaiter  engine.Awaiter
	sampler  bool // eng is an engine.Sampler
	exec     engine.Exec
	gs       []*goroutine // by id
	cur      *goroutine   // the goroutine holding the turn
	curID    atomic.Int64 // the Go id of cur's worker, for the watchdog
	next     *goroutine   // the goroutine the turn goes to next (see successor)
	spawner  *goroutine   // the goroutine that discovers another (see discover)
	unrun    int          // goroutines whose function was not called yet (see spawn)
	picked   *goroutine   // the unrun goroutine Replay picked, until it runs
	sched    []engine.Choice
	failed   *engine.Choice // the operation that is the bug, if any
	tracer   *tracer
	maxSteps int32
	chans    Obj  // the channels of the execution: one object
	over     bool // the outcome is decided
	aborting bool // parked goroutines are being unwound
	ending   engine.Ending
	// exhausted holds the channels whose senders weft stopped exploring
	// (see Exhaust).
	exhausted map[chans.ID]string
	// finalizer is where the program first set a finalizer that the
	// execution dropped (see DropFinalizer), or "".
	finalizer string
	// cleanups are the functions that the body runs when it returns, the
	// last added first (see Cleanup).
	cleanups []func()
	// faulted is the first bug the execution went on past (see
	// engine.Continuer): it ends Buggy, with no other bug.
	faulted *engine.Bug
	// shadows holds what models keep per address of plain memory (see
	// Shadow). Its keys keep the variables alive, so that no address is
	// reused for another variable while the execution runs.
	shadows map[unsafe.Pointer]any
	// mem is the race checker of plain memory (see Access).
	mem memory
	// objs and locals hold the indexes of the objects, and the values of
	// the Locals, that an execution of another check held when x first
	// used them (see claim).
	objs   map[*Obj]int32
	locals map[*Obj]any
}

// bind returns the index of o in x, binding it on first use.
func (x *execution) bind(o *Obj, k event.ObjKind) int32 {
	if o.epoch.Load() == x.epoch {
		return o.idx
	}
	return x.bindSlow(o, k)
}

// bindSlow is bind for an object that another execution may hold.
func (x *execution) bindSlow(o *Obj, k event.ObjKind) int32 {
	if idx, ok := x.objs[o]; ok {
		return idx
	}
	idx := int32(len(x.exec.Objects))
	x.exec.Objects = append(x.exec.Objects, k)
	if x.tracer != nil {
		x.tracer.object(idx, k)
	}
	if x.claim(o) {
		o.idx = idx
	} else {
		if x.objs == nil {
			x.objs = map[*Obj]int32{}
		}
		x.objs[o] = idx
	}
	return idx
}

// claim binds o, which is not bound to x, to x, and reports true; or it
// reports false when an execution of another check that runs holds o (the
// checks share a package-level object): x then keeps its binding to itself.
// Executions of one check run one after the other: an epoch of x's check
// other than x's is over.
func (x *execution) claim(o *Obj) bool {
	for {
		old := o.epoch.Load()
		if old != 0 && old>>32 != x.epoch>>32 && held(old) {
			return false
		}
		if o.epoch.CompareAndSwap(old, x.epoch) {
			return true
		}
	}
}

// held reports whether the execution with epoch e runs. The driver of that
// execution clears its epoch, an atomic, once no goroutine of the
// execution can use an object: what they wrote of the object before
// happens before what the caller then writes.
func held(e uint64) bool {
	d := driverByID(uint32(e >> 32))
	return d != nil && d.epoch.Load() == e
}

// newGoroutine adds goroutine id, running fn, to the execution.
func (x *execution) newGoroutine(id, parent int32, fn func()) *goroutine {
	g := x.d.allocGoroutine()
	g.ID, g.Parent = id, parent // the rest of g is zero (allocGoroutine)
	g.x = x
	g.fn = fn
	g.w = x.d.allocWorker()
	g.w.g = g
	for int(id) >= len(x.gs) {
		x.gs = append(x.gs, nil)
		x.exec.G = append(x.exec.G, nil)
	}
	if x.gs[id] != nil {
		panic(fmt.Sprintf("weft: internal error: goroutine %d spawned twice", id))
	}
	x.gs[id] = g
	x.exec.G[id] = &g.Goroutine
	x.unrun++
	return g
}

// dispatch asks the engine what happens next and returns the goroutine that
// runs on, or nil when the execution is over.
func (x *execution) dispatch() *goroutine {
	if x.d.stray.Load() != nil && x.strayFailed() {
		return nil // the load above keeps the call off the path of every step
	}
	if x.unrun > 0 {
		return x.start()
	}
	d := x.eng.Step(&x.exec)
	switch d.Verdict {
	case engine.Run:
		return x.ran(d.Choice, d.Bug, false)
	case engine.Stop:
		x.stop()
	case engine.Fail:
		if d.G >= 0 {
			// The failing operation is the last step of the schedule, so that
			// a replay reaches the same bug.
			failed := d.Choice
			if x.fault(d.Bug, &failed) {
				return x.dispatch()
			}
			x.failed = &failed
			x.sched = append(x.sched, *x.failed)
			if x.tracer != nil {
				x.tracer.failed(x.gs[d.G])
			}
		}
		x.fail(d.Bug)
	case engine.Drop:
		x.end(engine.Ending{Kind: engine.Dropped})
	}
	return nil
}

// ran records that the engine performed the operation c of goroutine
// c.G, with bug when it is a data race the execution goes on past, and
// returns the goroutine that runs on, or nil when the execution is over.
// replayed says that Replay performed it (see spawn).
func (x *execution) ran(c engine.Choice, bug *engine.Bug, replayed bool) *goroutine {
	h := x.gs[c.G]
	x.exec.Last = c.G
	x.sched = append(x.sched, c)
	h.Steps++
	if x.tracer != nil {
		x.tracer.step(h)
	}
	// A system goroutine does what the program's goroutines ask of it
	// (the clock fires the timers they set), which their own limits
	// bound: x/sync's TestGoLimit sleeps in 1,025 goroutines, and the
	// clock took the step limit meant for a loop.
	if h.Steps > x.maxSteps && !h.system {
		where := ""
		if x.tracer != nil {
			where = fmt.Sprintf(", the last at %s:%d", h.pos.File, h.pos.Line)
		}
		x.fail(&engine.Bug{
			Kind:    engine.StepLimit,
			Message: fmt.Sprintf("%s performed more than %d operations%s: an infinite loop or a livelock (raise the limit with WithMaxSteps)%s", x.describe(h), x.maxSteps, where, x.starved(h)),
			G:       h.ID,
		})
		return nil
	}
	if len(x.sched)%longEvery == 0 && x.long(h) {
		return nil
	}
	if bug != nil {
		x.report(bug, nil)
	}
	if h.Pending.Kind == event.Spawn && !x.spawn(h, h.Pending.Arg, replayed) {
		return nil
	}
	return h
}

// spawn adds goroutine id, which h's spawn, just performed, starts. It
// reports false when the execution is over (see discover).
//
// A spawn that Replay performed (replayed) leaves the goroutine unrun
// until Replay picks it, or until the next Step, before which dispatch
// runs it to its first operation (Step looks at the pending operation of
// every goroutine), and Step runs there. Discovered at the spawn, it would
// run to its operation and back, two coroutine switches (6 of the 15 of a
// fib_bench execution) where a goroutine that Replay picks needs none, and
// one that Step picks, none or one. Its code before its first operation
// then runs later than in the execution that recorded the spawn, which no
// program without a data race can tell. So only replays leave it unrun,
// and not with WithAllBugs, which goes on past a race: a replay must read
// what the recorded execution read, and the first run of a spawn finds a
// race in the child's first lines as it always has.
func (x *execution) spawn(h *goroutine, id int32, replayed bool) bool {
	h.spawnSteps = append(h.spawnSteps, h.Steps)
	c := x.newGoroutine(id, h.ID, h.spawnFn)
	h.spawnFn = nil
	if x.tracer != nil {
		x.tracer.spawn(c, h.pos)
	}
	if replayed && !x.exec.Continue {
		return true
	}
	return x.discover(c)
}

// start returns a goroutine that has not started (see spawn), which runs
// to its first operation and then dispatches: Step runs on the last one
// that started, and when it picks that one, no coroutine switch is spent
// on its discovery.
func (x *execution) start() *goroutine {
	for _, c := range x.gs {
		if c != nil && !c.started {
			return c
		}
	}
	panic("weft: internal error: no goroutine to start")
}

// discover runs c, just spawned, to its first operation, so that the
// engine knows it. The goroutine holding the turn resumes c's worker
// itself, and c's first operation hands the turn straight back to it: a
// round trip through the driver would be two more coroutine switches for
// every spawn. It reports false when the execution is over (c hit an
// internal error): the caller must then park.
func (x *execution) discover(c *goroutine) bool {
	cur, id := x.cur, x.curID.Load()
	c.discovering = true
	x.spawner = cur
	x.cur = c
	x.curID.Store(c.w.id)
	x.d.switchTo(&cur.w.fiber, &c.w.fiber)
	x.cur = cur
	x.curID.Store(id)
	return !x.over && !x.d.abandoned.Load()
}

// longEvery is how many operations of an execution go between two looks
// at the clock (long): often enough for a timeout to end an execution soon
// after it passed, rarely enough to cost nothing.
const longEvery = 1024

// long is called every longEvery operations of x, of which h's is the
// last: it shows the progress of a long execution, which the driver
// otherwise shows between executions only, and ends x with a StepLimit bug
// when the check's timeout, which begin checks between executions only,
// has passed (and the execution goes on long after). Otherwise an execution that the engine makes slow, such as a
// spin loop of tens of thousands of operations (each costs the engine
// more than the one before), runs for minutes with nothing to show.
func (x *execution) long(h *goroutine) bool {
	d := x.d
	now := time.Now()
	if d.cfg.Progress != nil && now.Sub(d.lastProgress) >= d.cfg.ProgressInterval {
		d.lastProgress = now
		s := d.report.Stats
		s.Elapsed = now.Sub(d.start)
		s.Steps = len(x.sched)
		d.cfg.Progress(s)
	}
	// An execution under way when the timeout passes may end normally
	// soon after: only one still running lateStall later is cut, as the
	// watchdog gives a stalled one as long.
	if d.cfg.Timeout <= 0 || now.Sub(d.start) < d.cfg.Timeout+lateStall {
		return false
	}
	most := h
	for _, g := range x.gs {
		if g != nil && !g.system && (most.system || g.Steps > most.Steps) {
			most = g
		}
	}
	x.fail(&engine.Bug{
		Kind: engine.StepLimit,
		Message: fmt.Sprintf("the check's timeout (%v) passed during an execution still running %v later, after %d operations, %d of them by %s: an infinite loop or a livelock, or an execution too long for the time given (raise the timeout, or lower WithMaxSteps to stop loops sooner)",
			d.cfg.Timeout, lateStall, len(x.sched), most.Steps, x.describe(most)),
		G: most.ID,
		// A replay would run as long, and a timeout cuts it elsewhere.
		NoReplay: true,
	})
	return true
}

// canonical renumbers the goroutines of sched, a schedule of x, as a
// driver replaying it from scratch numbers them: in the order the schedule
// spawns them. The exploration numbered them in the order it first met
// them, over all executions, which differs when a goroutine is spawned by
// different parents, or in different orders, in different executions.
func (x *execution) canonical(sched []engine.Choice) []engine.Choice {
	ids := map[int32]int32{0: 0}
	steps := map[int32]int32{}
	next := int32(0)
	out := make([]engine.Choice, len(sched))
	for i, c := range sched {
		steps[c.G]++
		if int(c.G) < len(x.gs) && x.gs[c.G] != nil {
			for rank, s := range x.gs[c.G].spawnSteps {
				if s == steps[c.G] {
					next++
					ids[x.d.names.ids[pairKey(c.G, int32(rank))]] = next
				}
			}
		}
		out[i] = c
		if id, ok := ids[c.G]; ok {
			out[i].G = id
		}
		if id, ok := ids[c.With-1]; ok && c.With > 0 {
			out[i].With = id + 1
		}
	}
	return out
}

// end decides the outcome of the execution; the driver then unwinds it.
func (x *execution) end(e engine.Ending) {
	if x.over {
		return
	}
	x.over = true
	x.ending = e
	x.next = nil
}

// fail ends the execution with a bug.
func (x *execution) fail(b *engine.Bug) {
	if x.tracer != nil {
		x.tracer.fail(b)
	}
	x.end(engine.Ending{Kind: engine.Buggy, Bug: b})
}

// fault reports b, a bug of goroutine b.G whose operation failed (failed
// is nil when it has none, as for a panic), and goes on past it without
// the goroutine when the engine can (see engine.Continuer); the bug needs
// what the goroutines of also did (see engine.Reach). It returns false
// when the execution must end with b instead.
func (x *execution) fault(b *engine.Bug, failed *engine.Choice, also ...engine.Reach) bool {
	if !x.exec.Continue || x.over || b.G < 0 || b.NoReplay || x.tracer != nil {
		return false
	}
	switch b.Kind {
	case engine.Panic, engine.AssertionFailed, engine.DataRace, engine.Misuse:
	default:
		return false
	}
	x.gs[b.G].Status = engine.Stopped
	x.report(b, failed, also...)
	return true
}

// report records b, a bug the execution goes on past, if it can be the
// first of an execution.
func (x *execution) report(b *engine.Bug, failed *engine.Choice, also ...engine.Reach) {
	sched, first := x.eng.(engine.Continuer).Fault(&x.exec, b.G, failed, also)
	if x.faulted == nil {
		x.faulted = b
	}
	if first {
		x.d.record(b, sched, nil)
	}
}

// stop classifies an execution in which no goroutine can move.
func (x *execution) stop() {
	if x.faulted != nil {
		// What waits may wait for a goroutine a bug stopped.
		x.end(engine.Ending{Kind: engine.Buggy, Bug: x.faulted})
		return
	}
	var waiting []*goroutine
	assumed := false
	aw := x.awaiter
	for _, g := range x.gs {
		if g == nil {
			continue
		}
		switch g.Status {
		case engine.Blocked:
			if g.Pending.Kind == event.Block && g.Pending.Arg == event.Await && aw != nil && aw.Spins(&x.exec, g.ID) {
				// It waits in weft.Yield for writes that never come:
				// the real program spins forever.
				waiting = append(waiting, g)
				continue
			}
			assumed = true
		case engine.Ready:
			if g.system {
				// It waits on the program's behalf (a clock with no
				// timer): the program is over without it.
				continue
			}
			waiting = append(waiting, g)
		}
	}
	if !assumed && x.cut(waiting) {
		return
	}
	note := ""
	if !assumed && len(waiting) > 0 {
		var over bool
		if note, over = x.strayed(); over {
			return
		}
	}
	switch {
	case assumed:
		x.end(engine.Ending{Kind: engine.Assumed})
	case len(waiting) == 0:
		x.end(engine.Ending{Kind: engine.Completed})
	case x.gs[0].Status != engine.Ended:
		x.fail(&engine.Bug{Kind: engine.Deadlock, Message: "all goroutines are blocked: " + x.waits(waiting) + note, G: 0})
	default:
		x.fail(&engine.Bug{Kind: engine.GoroutineLeak, Message: "the body returned but goroutines are blocked forever: " + x.waits(waiting) + note + x.finalizerNote(), G: waiting[0].ID})
	}
}

// starved names the goroutines that waited to perform an operation during
// the last half of h's operations, which reached the step limit, without
// performing it: a loop of h that waits for one of them (x/sync's
// semaphore tests: for sem.TryAcquire(1) { sem.Release(1) }) spins only
// because weft explores schedules that Go's fair scheduler never runs.
// It returns "" when every other goroutine moved meanwhile, or had ended.
func (x *execution) starved(h *goroutine) string {
	from, n := len(x.sched), int32(0)
	for ; from > 0 && n < x.maxSteps/2; from-- {
		if x.sched[from-1].G == h.ID {
			n++
		}
	}
	moved := map[int32]bool{}
	for _, c := range x.sched[from:] {
		moved[c.G] = true
	}
	var parts []string
	for _, g := range x.gs {
		if g == nil || g == h || g.system || g.Status != engine.Ready || moved[g.ID] {
			continue
		}
		op := x.describeOp(&g.Pending)
		switch g.Pending.Kind {
		case event.ChanWait, event.Block:
			// Parked until another goroutine offers what it waits for:
			// no schedule keeps it from moving.
			continue
		case event.Select:
			op = "a select" // describeOp's words are for one blocked for good
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", x.describe(g), op))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf(". During its last %d operations, these goroutines had one to perform and did not move: %s. If the loop waits for one of them, it spins only because weft does not assume a fair scheduler, as Go has (see Limits in weft's README)",
		n, strings.Join(parts, "; "))
}

// waits says what each of the goroutines waits for.
func (x *execution) waits(gs []*goroutine) string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = fmt.Sprintf("%s waits in %s", x.describe(g), x.describeOp(&g.Pending))
	}
	return strings.Join(parts, "; ")
}

// describe names a goroutine for a message.
func (x *execution) describe(g *goroutine) string {
	if g.ID == 0 {
		return "the body's goroutine (g0)"
	}
	return fmt.Sprintf("goroutine g%d", g.ID)
}

// describeOp names an operation for a message.
func (x *execution) describeOp(l *event.Label) string {
	switch l.Kind {
	case event.Block:
		if l.Arg == event.Await {
			return "weft.Yield, spinning: what its loop reads never changes"
		}
	case event.Join:
		return fmt.Sprintf("Join of g%d", l.Arg)
	case event.Lock:
		return fmt.Sprintf("Lock of %s", ObjName(l.OKind, l.Obj))
	case event.SemAcquire:
		return fmt.Sprintf("acquire of %s", ObjName(l.OKind, l.Obj))
	case event.NotifyWait:
		return fmt.Sprintf("Wait of %s", ObjName(l.OKind, l.Obj))
	case event.ChanSend, event.ChanRecv:
		if int64(l.B.N) == -1 {
			return l.Kind.String() + " on a nil channel"
		}
		if l.Kind == event.ChanSend {
			return "a send on a channel"
		}
		return "a receive from a channel"
	case event.ChanWait:
		switch event.Kind(l.Arg) {
		case event.ChanSend:
			return "a send on a channel (no receiver)"
		case event.ChanRecv:
			return "a receive from a channel (no sender)"
		case event.Select:
			return "a select (no case ready)"
		}
	case event.Select:
		return "a select on nil channels only"
	}
	return l.Kind.String()
}

// ObjName names object idx of kind k for a person.
func ObjName(k event.ObjKind, idx int32) string {
	return fmt.Sprintf("%s#%d", k, idx)
}

// Name names o, bound in the running execution, as ObjName does; a note
// that replaces an operation's description names its object with it.
func (o *Obj) Name(k event.ObjKind) string {
	x, _ := running("weft: note")
	idx := o.idx
	if o.epoch.Load() != x.epoch {
		idx = x.objs[o]
	}
	return ObjName(k, idx)
}
