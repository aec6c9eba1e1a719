// Package context provides a modelled counterpart of the standard
// library's context package: cancellation, deadlines and request-scoped
// values, built on weft's channels, mutexes, atomics and virtual time
// (weft.dev/weft/time), so that every engine explores them like any other
// synchronization of the program.
//
// The only difference in shape is Done, which returns a *weft.Chan:
//
//	select {
//	case <-ctx.Done():   // weft.Select(ctx.Done().RecvCase(nil, nil), ...)
//	}
//
// Cancellation propagates as in the standard library: canceling a context
// cancels its children, closes their Done channels and sets their Err (the
// standard library's Canceled or DeadlineExceeded, so errors.Is works) and
// Cause; a context whose deadline passes is canceled by a timer of
// weft/time, which fires at any point after it was set (see that package);
// AfterFunc runs its function on a new goroutine. A context made by
// WithTimeout or WithDeadline whose cancel function is never called is no
// leak, as in Go: its timer fires, or is still set when the program ends.
//
// # What the engines see
//
// The standard library's mutex and atomics inside a context are internal:
// a program observes only whether Done is closed, what Err and Cause
// return, and when an AfterFunc's function runs. So a context is modelled
// by what can be observed, each a step the engines explore: its
// cancellation is one location, which a cancel sets with one
// CompareAndSwap (which fails, and only reads, when another cancel came
// first), which adding a child updates and which Err and Cause load; then
// the cancel closes Done, then it cancels each child, one after the other,
// as the standard library does under the parent's lock. Between the
// cancel's first step and the close, Err already returns the error while
// Done is open, as in the standard library. A deadline's timer firing is
// the cancel itself, run by weft/time's clock goroutine, and a cancel
// stops the timer by the same step: the timer finds the context canceled
// when it comes due, and does not move the clock. A canceled child stays
// in its parent's children (the standard library removes it), which only
// costs the parent's cancel a read of the child's state. Each execution of
// a program then differs from the others in the orders of these steps
// with the program's own operations, and in nothing the program cannot
// tell apart.
//
// # Contexts made outside a check
//
// A context made by WithCancel, WithDeadline or their kin outside any
// check (by a package as it initializes, or by a test's code around its
// subtests, which weft test runs as plain Go) behaves there as the
// standard library's, in virtual time, which stands still outside checks;
// its Done is nil there, as no channel can be waited on outside a check.
// Each execution of a check that uses it makes a context of its own from
// it, at the first use: with the same parent and deadline (whose timer
// fires at any point of the execution, as one set inside would), and
// canceled from the start if it was canceled before the check. A cancel
// inside a check cancels it for that execution only.
package context

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/internal/timerhook"
	wtime "weft.dev/weft/time"
)

// A Context carries a deadline, a cancellation signal, and other values
// across API boundaries. Its methods may be called by several goroutines
// at once.
type Context interface {
	// Deadline returns the time when work done on behalf of this context
	// should be canceled; ok is false when there is none.
	Deadline() (deadline time.Time, ok bool)
	// Done returns a channel that is closed when work done on behalf of
	// this context should be canceled, or nil if it can never be.
	Done() *weft.Chan[struct{}]
	// Err returns nil while Done is not closed, then Canceled or
	// DeadlineExceeded.
	Err() error
	// Value returns the value associated with this context for key, or
	// nil.
	Value(key any) any
}

// Canceled is the error returned by Context.Err when the context is
// canceled: the standard library's context.Canceled.
var Canceled = context.Canceled

// DeadlineExceeded is the error returned by Context.Err when the context's
// deadline passes: the standard library's context.DeadlineExceeded.
var DeadlineExceeded error = context.DeadlineExceeded

// A CancelFunc tells an operation to abandon its work. After the first
// call, subsequent calls do nothing.
type CancelFunc func()

// A CancelCauseFunc behaves like a CancelFunc but additionally sets the
// cancellation cause, which Cause returns.
type CancelCauseFunc func(cause error)

type emptyCtx struct{ name string }

func (emptyCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (emptyCtx) Done() *weft.Chan[struct{}]  { return nil }
func (emptyCtx) Err() error                  { return nil }
func (emptyCtx) Value(any) any               { return nil }
func (c emptyCtx) String() string            { return c.name }
func (c *cancelCtx) String() string          { return "context.WithCancel" }
func (c *timerCtx) String() string           { return "context.WithDeadline" }
func (c *valueCtx) String() string           { return "context.WithValue" }
func (c withoutCancelCtx) String() string    { return "context.WithoutCancel" }

// Background returns a non-nil, empty Context: never canceled, no values,
// no deadline.
func Background() Context { return emptyCtx{"context.Background"} }

// TODO returns a non-nil, empty Context, for code that does not know yet
// which Context to use.
func TODO() Context { return emptyCtx{"context.TODO"} }

// WithCancel returns a copy of parent with a new Done channel, closed when
// the returned cancel function is called or when the parent's Done
// channel is closed, whichever happens first.
func WithCancel(parent Context) (ctx Context, cancel CancelFunc) {
	c := newCanceler(parent)
	return c.(Context), func() { c.cancel(Canceled, nil) }
}

// WithCancelCause behaves like WithCancel but returns a CancelCauseFunc:
// calling it with a non-nil error records that error as the cause, which
// Cause returns.
func WithCancelCause(parent Context) (ctx Context, cancel CancelCauseFunc) {
	c := newCanceler(parent)
	return c.(Context), func(cause error) { c.cancel(Canceled, cause) }
}

// newCanceler returns a cancelCtx, or outside any check an outsideCtx.
func newCanceler(parent Context) canceler {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if runtime.Outside() {
		return withOutside(parent, time.Time{}, false, nil)
	}
	return withCancel(parent)
}

// withCancel returns a cancelCtx of parent, which is not nil.
func withCancel(parent Context) *cancelCtx {
	c := &cancelCtx{Context: parent, name: newName("context.WithCancel"), done: weft.MakeChan[struct{}](0)}
	propagateCancel(parent, c)
	return c
}

// Cause returns a non-nil error explaining why c was canceled: the cause
// given to its CancelCauseFunc, or else its Err. It returns nil while c is
// not canceled.
func Cause(c Context) error {
	if runtime.Outside() {
		if oc, ok := c.Value(&outsideKey).(*outsideCtx); ok {
			return oc.causeOutside()
		}
	}
	if cc, ok := c.Value(&cancelCtxKey).(*cancelCtx); ok {
		if cc.state.Load() == live {
			noteDone("context.Cause(%s) = nil", cc.name)
			return nil
		}
		noteDone("context.Cause(%s) = %v", cc.name, cc.cause)
		return cc.cause
	}
	return c.Err()
}

// AfterFunc arranges to call f on its own goroutine after ctx is done
// (canceled or timed out); if ctx is already done, it calls f at once on
// its own goroutine. Calling stop stops the association of ctx with f: it
// returns true if that stopped f from being run.
func AfterFunc(ctx Context, f func()) (stop func() bool) {
	a := &afterFunc{name: newName("context.AfterFunc"), f: f}
	if _, ok := parentCancelCtx(ctx); !ok && ctx.Done() != nil {
		// Watched by a goroutine, which stop must end.
		a.done = weft.MakeChan[struct{}](0)
	}
	propagateCancel(ctx, a)
	return func() bool {
		if !a.state.CompareAndSwap(live, canceled) {
			noteDone("stop %s: too late, its func started", a.name)
			return false
		}
		noteDone("stop %s before its func starts", a.name)
		if a.done != nil {
			a.done.Close()
		}
		return true
	}
}

// An afterFunc is the canceler of AfterFunc: its cancel starts f, unless
// stop came first. Which of the two came first is the one operation on
// state that succeeded.
type afterFunc struct {
	name  string // "context#3", for traces
	state atomic.Int32
	f     func()
	done  *weft.Chan[struct{}] // closed by either, when a goroutine watches the parent
}

func (a *afterFunc) Done() *weft.Chan[struct{}] { return a.done }

func (a *afterFunc) cancel(error, error) {
	if !a.state.CompareAndSwap(live, canceled) {
		noteDone("%s was stopped: its func does not start", a.name)
		return
	}
	noteDone("%s is done: its func starts", a.name)
	if a.done != nil {
		a.done.Close()
	}
	weft.Go(a.f)
}

// WithoutCancel returns a copy of parent that is not canceled when parent
// is: no Deadline, no Err, a nil Done; its values are parent's.
func WithoutCancel(parent Context) Context {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	return withoutCancelCtx{parent}
}

type withoutCancelCtx struct{ c Context }

func (withoutCancelCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (withoutCancelCtx) Done() *weft.Chan[struct{}]  { return nil }
func (withoutCancelCtx) Err() error                  { return nil }
func (c withoutCancelCtx) Value(key any) any         { return value(c, key) }

// cancelCtxKey is the key for which a cancelCtx returns itself.
var cancelCtxKey int

// parentCancelCtx returns the underlying *cancelCtx of parent, if parent
// is one of this package's whose Done is that of the cancelCtx.
func parentCancelCtx(parent Context) (*cancelCtx, bool) {
	done := parent.Done()
	if done == nil {
		return nil, false
	}
	p, ok := parent.Value(&cancelCtxKey).(*cancelCtx)
	if !ok || p.done != done {
		return nil, false
	}
	return p, true
}

// A canceler is a context that can be canceled directly.
type canceler interface {
	cancel(err, cause error)
	Done() *weft.Chan[struct{}]
}

// The values of a cancelCtx's state.
const (
	live     = 0
	canceled = 1
)

// A cancelCtx can be canceled. When canceled, it also cancels its
// children.
//
// The standard library guards a context with a mutex and keeps its error
// in an atomic; here state is the only modelled location of a context's
// cancellation: the other fields are plain Go, written and read only in
// the step of an operation on state (between it and the goroutine's next
// operation, which no other goroutine interleaves), so that the engines
// order every access to them by the operations on state. Cancel is one
// CompareAndSwap, which fails, and only reads, when the context was
// canceled already; adding a child is one too; Err and Cause are a Load.
// A context costs the program's executions only the orders that it can
// observe: whether a cancel came before an Err, a Done or another cancel.
type cancelCtx struct {
	Context // the parent

	name     string               // "context#2", for traces
	state    atomic.Int32         // live, then canceled
	done     *weft.Chan[struct{}] // closed by the cancel, after state is set
	err      error                // set with state
	cause    error                // set with state
	children []canceler           // in the order they were made (a map would iterate at random)
}

func (c *cancelCtx) Value(key any) any {
	if key == &cancelCtxKey {
		return c
	}
	return value(c.Context, key)
}

func (c *cancelCtx) Done() *weft.Chan[struct{}] { return c.done }

func (c *cancelCtx) Err() error {
	if c.state.Load() == live {
		noteDone("%s.Err() = nil", c.name)
		return nil
	}
	noteDone("%s.Err() = %v", c.name, c.err)
	return c.err
}

// propagateCancel arranges for child to be canceled when parent is, and
// reports whether parent was canceled already, and child with it.
func propagateCancel(parent Context, child canceler) bool {
	done := parent.Done()
	if done == nil {
		return false // parent is never canceled
	}
	if p, ok := parentCancelCtx(parent); ok {
		// A CompareAndSwap that changes nothing, for the step in which
		// the child is added while the parent is live: a cancel comes
		// before it, and the child is canceled now, or after it, and
		// cancels the child.
		if p.state.CompareAndSwap(live, live) {
			noteDone("%s: add a child", p.name)
			p.children = append(p.children, child)
			return false
		}
		noteDone("%s is canceled: cancel the new child", p.name)
		child.cancel(p.err, p.cause)
		return true
	}
	// A Context of the program's own: watch it, as the standard library
	// does.
	weft.Go(func() {
		if weft.Select(done.RecvCase(nil, nil), child.Done().RecvCase(nil, nil)) == 0 {
			child.cancel(parent.Err(), Cause(parent))
		}
	})
	return false
}

func (c *cancelCtx) cancel(err, cause error) { c.cancelAt(err, cause, nil) }

// cancelAt cancels c, unless it was canceled already, and reports whether
// it did: it closes c.done, and cancels each of c's children. at, if not
// nil, is called between the cancel and the close (a timer moves the
// clock to its deadline there). A nil cause is err.
//
// A canceled context is not removed from its parent's children, as the
// standard library removes it: a child is canceled before it is removed,
// and canceling it again only reads its state.
func (c *cancelCtx) cancelAt(err, cause error, at func()) bool {
	if err == nil {
		panic("context: internal error: missing cancel error")
	}
	if cause == nil {
		cause = err
	}
	if !c.state.CompareAndSwap(live, canceled) {
		noteDone("cancel %s: it was canceled already", c.name)
		return false
	}
	noteDone("cancel %s: %v", c.name, err)
	c.err, c.cause = err, cause
	children := c.children
	c.children = nil
	if at != nil {
		at()
	}
	note("%s: close Done", c.name)
	c.done.Close()
	for _, child := range children {
		child.cancel(err, cause)
	}
	return true
}

// WithDeadline returns a copy of parent whose deadline is no later than
// d: its Done channel is closed when d passes (a timer of weft/time
// fires), when cancel is called, or when parent's is closed, whichever
// happens first.
func WithDeadline(parent Context, d time.Time) (Context, CancelFunc) {
	return WithDeadlineCause(parent, d, nil)
}

// WithDeadlineCause behaves like WithDeadline but also sets the cause of
// the returned Context when the deadline passes.
func WithDeadlineCause(parent Context, d time.Time, cause error) (Context, CancelFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if runtime.Outside() {
		c := withOutside(parent, d, true, cause)
		return c, func() { c.cancel(Canceled, nil) }
	}
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		// The current deadline is already sooner than the new one.
		return WithCancel(parent)
	}
	c := newTimerCtx(parent, d)
	stop := func() { c.cancel(Canceled, nil) }
	// As in the standard library, c joins its parent first: a parent
	// canceled already cancels it, with the parent's error, and no timer
	// is set (one set first could fire before, and c would be past its
	// deadline where Go has it canceled).
	if propagateCancel(parent, c) {
		return c, stop
	}
	dur := wtime.Until(d)
	if dur <= 0 {
		c.cancel(DeadlineExceeded, cause) // the deadline has already passed
		return c, stop
	}
	// The timer's firing is the cancel: its CompareAndSwap on c.state
	// fails when c was canceled first (by its parent since it joined it,
	// say), which stops the timer. So a cancel need not stop it.
	timerhook.Fire(dur, func(at func()) bool {
		return c.cancelAt(DeadlineExceeded, cause, at)
	})
	return c, stop
}

// WithTimeout returns WithDeadline(parent, time.Now().Add(timeout)), in
// virtual time.
func WithTimeout(parent Context, timeout time.Duration) (Context, CancelFunc) {
	return WithDeadline(parent, wtime.Now().Add(timeout))
}

// WithTimeoutCause behaves like WithTimeout but also sets the cause of the
// returned Context when the timeout expires.
func WithTimeoutCause(parent Context, timeout time.Duration, cause error) (Context, CancelFunc) {
	return WithDeadlineCause(parent, wtime.Now().Add(timeout), cause)
}

// A timerCtx is a cancelCtx with a deadline, which a timer of the clock
// cancels it at.
type timerCtx struct {
	cancelCtx
	deadline time.Time
}

func (c *timerCtx) Deadline() (time.Time, bool) { return c.deadline, true }

// newTimerCtx returns a timerCtx of parent with deadline d, not yet a
// child of parent, with no timer.
func newTimerCtx(parent Context, d time.Time) *timerCtx {
	c := &timerCtx{deadline: d}
	c.Context = parent
	c.name = newName("context.WithDeadline")
	c.done = weft.MakeChan[struct{}](0)
	return c
}

// WithValue returns a copy of parent in which the value associated with
// key is val. The key must be comparable and should not be of a built-in
// type.
func WithValue(parent Context, key, val any) Context {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if key == nil {
		panic("nil key")
	}
	if !reflect.TypeOf(key).Comparable() {
		panic("key is not comparable")
	}
	return &valueCtx{parent, key, val}
}

// A valueCtx carries a key-value pair and delegates the rest to its
// parent.
type valueCtx struct {
	Context
	key, val any
}

func (c *valueCtx) Value(key any) any {
	if c.key == key {
		return c.val
	}
	return value(c.Context, key)
}

// value looks key up along the chain of parents, without recursion for
// this package's contexts.
func value(c Context, key any) any {
	for {
		switch ctx := c.(type) {
		case *valueCtx:
			if key == ctx.key {
				return ctx.val
			}
			c = ctx.Context
		case *cancelCtx:
			if key == &cancelCtxKey {
				return c
			}
			c = ctx.Context
		case withoutCancelCtx:
			if key == &cancelCtxKey {
				// A WithoutCancel context has no cancel of its own.
				return nil
			}
			c = ctx.c
		case *timerCtx:
			if key == &cancelCtxKey {
				return &ctx.cancelCtx
			}
			c = ctx.Context
		case emptyCtx:
			return nil
		default:
			return c.Value(key)
		}
	}
}

// names counts the contexts of the running execution, to name them in
// traces.
var names runtime.Local[int]

// newName names a new context of the running execution.
func newName(what string) string {
	n := names.Get(what)
	*n++
	return fmt.Sprintf("context#%d", *n)
}

// note sets the text of the calling goroutine's next operation in a trace.
func note(format string, args ...any) {
	if runtime.Tracing() {
		runtime.Note(fmt.Sprintf(format, args...))
	}
}

// noteDone sets the text of the calling goroutine's last operation in a
// trace, for a text that depends on its result.
func noteDone(format string, args ...any) {
	if runtime.Tracing() {
		runtime.NoteDone(fmt.Sprintf(format, args...))
	}
}
