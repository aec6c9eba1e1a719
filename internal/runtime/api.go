package runtime

import (
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"unsafe"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
)

// Obj is the header of every modelled object. Its zero value is ready: the
// first operation of an execution on the object binds it to that execution.
// An object that checks running at once share (a package-level one) is
// bound to one of them at a time; the others keep its binding to
// themselves.
type Obj struct {
	epoch atomic.Uint64 // of the execution it is bound to
	idx   int32
}

// Handle names a goroutine of one execution.
type Handle struct {
	epoch uint64
	id    int32
}

// running returns the execution of the calling goroutine and its
// goroutine, or panics with a message naming what was called outside a
// check.
func running(what string) (*execution, *goroutine) { return runningOn(lookup(self()), what) }

// runningOn is running for the calling goroutine's worker w, nil if it has
// none.
func runningOn(w *worker, what string) (*execution, *goroutine) {
	if w == nil {
		foreign(what)
		panic(outside(what))
	}
	if w.d.abandoned.Load() {
		// The watchdog gave the execution up: nothing of it may move.
		runtime.Goexit()
	}
	g := w.g
	if g.x.aborting {
		panic(abortSignal{})
	}
	return g.x, g
}

func outside(what string) string {
	at := callSite()
	if initializing() {
		return fmt.Sprintf("weft: %s called%s while its package initializes, outside any check: weft's timers, and the operations "+
			"of its channels and sync objects, exist only inside the body given to weft.Check or weft.Explore, each execution its own, "+
			"and code that uses them as its package initializes (a package variable, an init function, as rewritten by weft test) "+
			"cannot be checked as it is: a package initializes before any check runs", what, at)
	}
	return fmt.Sprintf("weft: %s called%s outside a running check (use it inside the body given to weft.Check or weft.Explore)", what, at)
}

// initializing reports whether a package's initialization runs on the
// calling goroutine's stack.
func initializing() bool {
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "runtime.doInit") {
			return true
		}
		if !more {
			return false
		}
	}
}

// unattributed is the message of a weft operation called by a goroutine
// that weft does not run when no check can be told its own.
func unattributed(what string) string {
	return fmt.Sprintf("weft: %s called by a goroutine that weft does not run, started with the go statement by goroutines that have ended: it belongs to none of the checks running, or weft cannot tell to which (start goroutines with weft.Go, not the go statement)", what)
}

// foreign handles a weft operation called by a goroutine that is not a
// worker. It returns only when the goroutine was started outside any check,
// but not by weft.Go: its caller then panics. One that weft.Go started
// there waits for good (see parkOutside). A goroutine started with the go statement inside
// a running check (a stray) makes that check report a misuse, and ends; a
// goroutine of an abandoned execution (see watchdog.go), or started by one,
// or by goroutines that ended when no check runs, ends quietly: there is no
// check to report to. A stray that weft cannot attribute to one of the
// checks running panics. It is the slow path: it reads the stacks of all
// goroutines.
func foreign(what string) {
	switch o, d := whose(); o {
	case ownerOutside:
		parkOutside(what)
		return
	case ownerCheck:
		d.strayCall(what + " was called")
	case ownerUnknown:
		panic(unattributed(what))
	}
	runtime.Goexit()
}

// strayCall handles a weft operation called by a goroutine that weft does
// not run (one started with the go statement): it must not touch the
// execution, which another goroutine is running. The check reports it and
// the goroutine ends, as with runtime.Goexit. If the execution does not
// notice it soon (its goroutine may be waiting for this one on a real
// channel), the watchdog ends the check. what says what the goroutine did:
// "Chan.Send was called".
func (d *driver) strayCall(what string) {
	p := callerPos()
	msg := fmt.Sprintf("%s at %s:%d by a goroutine that weft does not run%s: start goroutines with weft.Go, not the go statement (with weft test: the package that started it was not rewritten; name it with -rewrite)", what, p.File, p.Line, startedBy())
	d.stray.CompareAndSwap(nil, &msg)
	select {
	case d.wake <- struct{}{}:
	default:
	}
	runtime.Goexit()
}

// parkOutside parks for good the calling goroutine, started outside any
// check, when weft.Go started it (as a package initialized, say: a
// flusher with a ticker of weft's): no check can run it, and its panic
// ended the test binary, with the tests that never touch what it serves.
// It says so on the standard error. It returns for any other goroutine.
func parkOutside(what string) {
	if !strings.HasPrefix(createdBy(), "weft.dev/weft.Go ") {
		return
	}
	fmt.Fprintf(os.Stderr, "weft: %s called%s by a goroutine that weft.Go started outside any check: no check can run it, and it waits for good\n", what, callSite())
	select {}
}

// callSite is " at file:line" of the innermost caller outside weft, or ""
// when there is none.
func callSite() string {
	if p := callerPos(); p.File != "" {
		return fmt.Sprintf(" at %s:%d", p.File, p.Line)
	}
	return ""
}

// createdBy returns the go statement that started the calling goroutine:
// "function at file:line", or "" when its stack does not say.
func createdBy() string {
	buf := make([]byte, 64<<10)
	if gs := parseDump(string(buf[:runtime.Stack(buf, false)])); len(gs) > 0 {
		return gs[0].createdBy
	}
	return ""
}

// startedBy says where the calling goroutine was started: ", started by
// F at file:line", or "" when its stack does not say.
func startedBy() string {
	if c := createdBy(); c != "" {
		return ", started by " + c
	}
	return ""
}

// Nested stops a check (what: "weft.Check", "weft.Explore") started from a
// goroutine of a running check, which would wait forever for the running
// check to end: in a modelled goroutine it is a Misuse bug of the running
// check, and does not return; in a goroutine started with the go statement
// inside the check it is a stray call. It returns when the caller is not a
// goroutine of a check.
func Nested(what string) {
	if lookup(self()) != nil {
		Fail(engine.Misuse, what+" called inside a check: nested checks are not supported")
	}
	if checking.Load() == 0 {
		return
	}
	switch o, d := whose(); o {
	case ownerCheck:
		d.strayCall(what + " was called")
	case ownerAbandoned:
		runtime.Goexit()
	case ownerUnknown:
		panic(unattributed(what))
	}
}

// Do performs the visible operation lab on o for the calling goroutine and
// returns its result. what names the operation for misuse messages.
func Do(o *Obj, lab event.Label, what string) event.Result { return *Op(o, &lab, what) }

// Op is Do for the loads, stores and updates of the atomic types and of
// Vars, the operations programs perform most: it copies neither the label
// nor the result, which is the calling goroutine's own until its next
// operation.
//
// It writes running and do out: they were three calls on the path of most
// of a program's operations. runningOn is left the checks that fail (no
// running check, an abandoned or aborted execution), and does not return.
func Op(o *Obj, lab *event.Label, what string) *event.Result {
	key := self()
	w := first(key)
	if w == nil {
		if w = lookup(key); w == nil {
			runningOn(w, what) // does not return
		}
	}
	// Two conditions: in one with the atomic load, the load's result
	// went through a register and a test of its own.
	if w.d.abandoned.Load() {
		runningOn(w, what)
	}
	if w.g.x.aborting {
		runningOn(w, what)
	}
	g := w.g
	lab.Obj = g.x.bind(o, lab.OKind)
	r := g.op(lab)
	if r.Panic != nil {
		raise(r.Panic)
	}
	return r
}

// TryDo is Do, unless the caller takes no part in a check (see Outside):
// it then performs nothing and reports false, for the caller to do what
// plain Go does (code that weft test rewrote runs outside checks at
// package initialization and in TestMain).
func TryDo(o *Obj, lab event.Label, what string) (event.Result, bool) {
	w := lookup(self())
	if w == nil && Outside() {
		return event.Result{}, false
	}
	x, g := runningOn(w, what)
	return *x.do(g, o, &lab), true
}

// DoAtomic is Do for an operation of sync/atomic's functions on the plain
// variable of size bytes at p, which races with the plain accesses of the
// variable (see checkAccess).
func DoAtomic(o *Obj, lab event.Label, what string, p unsafe.Pointer, size uintptr) event.Result {
	x, g := running(what)
	checkAccess(g.w, p, size, lab.Kind != event.Load, true)
	return *x.do(g, o, &lab)
}

// do performs lab on o for g.
func (x *execution) do(g *goroutine, o *Obj, lab *event.Label) *event.Result {
	lab.Obj = x.bind(o, lab.OKind)
	r := g.op(lab)
	if r.Panic != nil {
		raise(r.Panic)
	}
	return r
}

// ChanOp performs the channel operation lab (on the execution's channels)
// for the calling goroutine. what names the operation for misuse messages.
func ChanOp(lab event.Label, what string) event.Result {
	x, g := running(what)
	lab.OKind = event.Chan
	r := Do(&x.chans, lab, what)
	if lab.Kind == event.ChanMake {
		g.madeChan = int64(r.V.N)
	}
	return r
}

// raise panics with v on behalf of the program: the operation it called
// panics, as its standard library counterpart would.
func raise(v any) { panic(v) }

// raiseName is raise's function name: its panics are the program's.
var raiseName = runtime.FuncForPC(reflect.ValueOf(raise).Pointer()).Name()

// Go starts fn on a new modelled goroutine. Its handle is in a slab of
// the check's (see driver.handles), which no other handle reuses. It
// returns nil, starting nothing, when the caller takes no part in a check
// (see Outside): the caller then starts fn on a goroutine of plain Go.
func Go(fn func()) *Handle {
	w := lookup(self())
	if w == nil && fn != nil && Outside() {
		return nil
	}
	x, g := runningOn(w, "weft.Go")
	if fn == nil {
		panic("weft: Go called with a nil function")
	}
	id := x.d.names.childID(g.ID, g.children)
	g.children++
	g.spawnFn = fn
	g.op(&event.Label{Kind: event.Spawn, Obj: -1, Arg: id})
	return x.d.newHandle(Handle{epoch: x.epoch, id: id})
}

// newHandle returns a copy of h that no other handle shares: programs
// spawn goroutines by the million, and allocating their handles one by
// one was a third of the allocations of fib_bench's executions.
func (d *driver) newHandle(h Handle) *Handle {
	if len(d.handles) == cap(d.handles) {
		d.handles = make([]Handle, 0, 64)
	}
	d.handles = append(d.handles, h)
	return &d.handles[len(d.handles)-1]
}

// Join blocks until the goroutine h has returned.
func Join(h Handle) {
	x, g := running("Goroutine.Join")
	if h.epoch != x.epoch {
		Fail(engine.Misuse, "Join of a goroutine that belongs to another execution (a *weft.Goroutine must not outlive the body that started it)")
	}
	if h.id == g.ID {
		Fail(engine.Misuse, "a goroutine joins itself")
	}
	g.op(&event.Label{Kind: event.Join, Obj: -1, Arg: h.id})
}

// Yield ends an iteration of a spin loop. An iteration that only read
// shared memory (event.ReadOnly) since the goroutine's last other
// operation would repeat identically until another goroutine writes: the
// goroutine waits instead, for good in this execution, which the engines
// treat as an Assume(false); the executions where its reads read later
// writes are explored from those writes. At the end of an execution, a
// goroutine that waits there although nothing wrote what it read spins
// forever in the real program (see engine.Awaiter).
func Yield() {
	x, g := running("weft.Yield")
	if g.spinReads > 0 {
		g.op(&event.Label{Kind: event.Block, Obj: -1, Arg: event.Await})
		g.blockForever()
	}
	g.yields++
	if g.yields > x.maxSteps {
		Fail(engine.StepLimit, fmt.Sprintf("%s called weft.Yield %d times without any weft operation in between: it spins on something weft does not see (plain memory, a real channel?)", x.describe(g), g.yields))
	}
}

// Block blocks the calling goroutine forever: Assume(false).
func Block() {
	if symHook() != nil {
		panic(EffectMisuse("an assumption that fails"))
	}
	_, g := running("weft.Assume")
	g.op(&event.Label{Kind: event.Block, Obj: -1})
	g.blockForever()
}

// Fail ends the execution with a bug of the calling goroutine. It does not
// return.
func Fail(kind engine.BugKind, msg string) { failAt(kind, msg, nil) }

// FailAt is Fail, at the position at: the program's call of a library
// that is not rewritten, which reports the failure for it (testify's
// assertions, through weft/rewritten's Reporter), rather than the line
// inside the library.
func FailAt(kind engine.BugKind, msg string, at Pos) { failAt(kind, msg, &at) }

func failAt(kind engine.BugKind, msg string, at *Pos) {
	if symHook() != nil {
		panic(EffectMisuse("an assertion that fails"))
	}
	x, g := running("weft.Assert")
	if x.tracer != nil {
		if at != nil {
			g.pos = *at
		} else {
			g.pos = callerPos()
		}
	}
	g.fails(&engine.Bug{Kind: kind, Message: msg, G: g.ID})
}

// fails ends the execution with b, a bug of the calling goroutine g, or
// goes on without g (see engine.Continuer; also as for fault). It does not
// return.
func (g *goroutine) fails(b *engine.Bug, also ...engine.Reach) {
	x := g.x
	if !g.failStep(b.Kind) {
		g.park()
		panic("weft: internal error: a goroutine of an execution that is over was resumed")
	}
	if x.fault(b, nil, also...) {
		x.next = x.dispatch()
	} else {
		x.fail(b)
	}
	g.park()
	panic("weft: internal error: a failed goroutine was resumed")
}

// Outside reports whether the caller takes no part in a check: none runs,
// or the caller is a goroutine started outside any (a test's, running in
// parallel). A weft operation there panics: code that may run either way
// (rewritten code's failures) does the standard thing instead. When a
// check runs and the caller is not its goroutine, it is the slow path.
func Outside() bool {
	if lookup(self()) != nil {
		return false
	}
	if checking.Load() == 0 {
		return true
	}
	o, _ := whose()
	return o == ownerOutside
}

// Check panics with the usual message when called outside a check; the
// public API calls it where it has nothing else to do.
func Check(what string) { running(what) }
