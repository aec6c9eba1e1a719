package runtime

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
)

// This file is the runtime's support for models built out of modelled
// operations, such as weft/time's virtual clock: system goroutines, values
// per execution, notes that name internal operations in traces, and
// channels whose senders weft stops exploring. None of it is an operation
// of its own: the engines see only the modelled operations these models
// perform.

// System marks the calling goroutine as a system goroutine: one the model
// of a library runs on the program's behalf (weft/time's clock). A system
// goroutine still waiting when nothing else can move is neither a
// deadlock nor a leak: the execution ends as if it had returned.
func System() {
	_, g := running("weft: system goroutine")
	g.system = true
}

// Local holds a value of type T per execution: the first Get of an
// execution returns a new zero T, later ones of the same execution the
// same one. Like an Obj, a package-level Local is thereby reset at the
// start of every execution, and checks running at once have each their
// own.
type Local[T any] struct {
	o Obj
	v *T
}

// Get returns the value of the running execution. what names the caller
// for the message of a call outside a check.
func (l *Local[T]) Get(what string) *T {
	x, _ := running(what)
	if l.o.epoch.Load() == x.epoch {
		return l.v
	}
	if v, ok := x.locals[&l.o]; ok {
		return v.(*T)
	}
	v := new(T)
	if x.claim(&l.o) {
		l.v = v
	} else {
		if x.locals == nil {
			x.locals = map[*Obj]any{}
		}
		x.locals[&l.o] = v
	}
	return v
}

// Shadow returns the state that a model keeps, in the running execution,
// for the variable of plain Go at address p (weft/atomic's functions keep
// the modelled location of a plain int32 there): a new zero T, with fresh
// set, on the first call of an execution for p, then the same one. Like a
// Local, it is thereby reset at the start of every execution. Each model
// keeps its own T; what names the caller for the message of a call
// outside a check.
func Shadow[T any](p unsafe.Pointer, what string) (s *T, fresh bool) {
	x, _ := running(what)
	if v, ok := x.shadows[p]; ok {
		s, ok := v.(*T)
		if !ok {
			panic(fmt.Sprintf("weft: internal error: the shadow of %p is a %T, not a %T", p, v, s))
		}
		return s, false
	}
	if x.shadows == nil {
		x.shadows = map[unsafe.Pointer]any{}
	}
	s = new(T)
	x.shadows[p] = s
	return s, true
}

// Rand returns the next number of the calling goroutine's own
// pseudo-random sequence (splitmix64), which its id seeds: the same
// numbers in every execution where the goroutine asks for them, however
// the goroutines interleave, so that replays agree and equivalent
// executions stay equivalent. It stands for the runtime's random numbers
// (runtime.cheaprand, which code reaches through go:linkname; see package
// rewritten). Outside any check it is math/rand/v2's.
func Rand() uint64 {
	w := lookup(self())
	if w == nil {
		return rand.Uint64()
	}
	g := w.g
	g.rand += 0x9E3779B97F4A7C15
	z := g.rand ^ uint64(g.ID+1)*0xD6E8FEB86659FD93
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// Tracing reports whether the running execution is traced (it is replayed
// for a report): only then are notes worth formatting.
func Tracing() bool {
	w := lookup(self())
	if w == nil {
		return false
	}
	x := w.g.x
	return x.tracer != nil && !x.aborting
}

// Note sets the text that a traced execution shows for the calling
// goroutine's next operation instead of its usual description (for
// example "timer#3 fires at +2s" for a store to the virtual clock). It
// does nothing when the execution is not traced.
func Note(text string) {
	x, g := running("weft: note")
	if x.tracer != nil {
		g.note = text
	}
}

// Exhaust marks channel id (a chans.ID) as one whose sender weft stops
// exploring, or no longer (on false): what is the sender, for messages
// ("ticker#2"). An execution in which a goroutine waits forever on such a
// channel ends as blocked, not as a deadlock: the sender would have sent
// more; see cut for the exception.
func Exhaust(id int64, what string, on bool) {
	x, _ := running("weft: exhaust")
	if !on {
		delete(x.exhausted, chans.ID(id))
		return
	}
	if x.exhausted == nil {
		x.exhausted = map[chans.ID]string{}
	}
	x.exhausted[chans.ID(id)] = what
}

// waitsOn returns the exhausted channel that goroutine g waits on, if any.
func (x *execution) waitsOn(g *goroutine) (string, bool) {
	if len(x.exhausted) == 0 {
		return "", false
	}
	l := &g.Pending
	if cases, ok := l.A.P.([]chans.Case); ok && (l.Kind == event.Select || l.Kind == event.ChanWait) {
		for _, c := range cases {
			if what, ok := x.exhausted[c.Chan]; ok && !c.Send {
				return what, true
			}
		}
		return "", false
	}
	if l.Kind == event.ChanRecv || (l.Kind == event.ChanWait && event.Kind(l.Arg) == event.ChanRecv) {
		what, ok := x.exhausted[chans.ID(int64(l.B.N))]
		return what, ok
	}
	return "", false
}

// cut classifies an execution that stopped with the goroutines
// waiting, when some wait on an exhausted channel: weft did not explore
// what its sender would have sent next, so the execution is cut (it ends
// as blocked), unless the body has returned: a goroutine that outlives
// the body waiting for a sender that would send forever (a ticker never
// stopped) is a leak. It reports whether it decided the outcome.
func (x *execution) cut(waiting []*goroutine) bool {
	var who []string
	for _, g := range waiting {
		if what, ok := x.waitsOn(g); ok {
			who = append(who, fmt.Sprintf("%s waits for %s", x.describe(g), what))
		}
	}
	if len(who) == 0 {
		return false
	}
	if x.gs[0].Status != engine.Ended {
		x.end(engine.Ending{Kind: engine.Assumed})
		return true
	}
	x.fail(&engine.Bug{
		Kind:    engine.GoroutineLeak,
		Message: "the body returned but goroutines wait for a ticker that was never stopped, and would run on its ticks: " + strings.Join(who, "; ") + " (weft explores the first ticks of a ticker only)" + x.finalizerNote(),
		G:       waiting[0].ID,
	})
	return true
}

// Cleanup adds f to the functions that the body of the running execution
// runs when it returns, the last added first: the functions a test that
// weft test made a check of gives t.Cleanup, which testing would run after
// the check, outside it (see weft/rewritten's Cleanup).
func Cleanup(f func()) {
	x, _ := running("t.Cleanup")
	x.cleanups = append(x.cleanups, f)
}

// runCleanups runs the execution's cleanups on the body's goroutine, after
// the body returned; a cleanup may add more.
func (x *execution) runCleanups() {
	for n := len(x.cleanups); n > 0; n = len(x.cleanups) {
		f := x.cleanups[n-1]
		x.cleanups[n-1] = nil
		x.cleanups = x.cleanups[:n-1]
		f()
	}
}

// NumGoroutine is runtime.NumGoroutine for the calling goroutine: inside a
// check, the goroutines of the running execution that have not ended (but
// the system goroutines of weft's models), and the test binary's main
// goroutine; outside, the process's. It is no operation of its own: the
// engines do not order it with the ends of goroutines, and a program that
// branches on it may not get every value that some interleaving gives.
func NumGoroutine() int {
	w := lookup(self())
	if w == nil {
		return runtime.NumGoroutine()
	}
	n := 1
	for _, g := range w.g.x.gs {
		if g != nil && !g.system && g.Status != engine.Ended {
			n++
		}
	}
	return n
}

// DropFinalizer records that the calling goroutine set a finalizer or a
// cleanup that its execution drops (see weft/rewritten's SetFinalizer): a
// leak names the first, which might have stopped the goroutines.
func DropFinalizer() {
	x, _ := running("runtime.SetFinalizer")
	if x.finalizer == "" {
		p := callerPos()
		x.finalizer = fmt.Sprintf("%s:%d", filepath.Base(p.File), p.Line)
	}
}

// finalizerNote is what a leak report says of the finalizer the execution
// dropped, if any.
func (x *execution) finalizerNote() string {
	if x.finalizer == "" {
		return ""
	}
	return "; a finalizer or cleanup set at " + x.finalizer + " did not run (weft runs none, and Go does not promise to run them)"
}

// NoteDone sets the text that a traced execution shows for the calling
// goroutine's last operation, for a note that depends on its result. It
// does nothing when the execution is not traced.
func NoteDone(text string) {
	x, g := running("weft: note")
	if x.tracer == nil {
		return
	}
	steps := x.tracer.t.Steps
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].G == g.ID {
			steps[i].Note = text
			return
		}
	}
}

// MadeChan returns the ID (a chans.ID) of the channel that the calling
// goroutine made last, for a model that must name its channel (see
// Exhaust).
func MadeChan() int64 {
	_, g := running("weft: channel")
	return g.madeChan
}
