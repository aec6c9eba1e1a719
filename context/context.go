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
// AfterFunc runs its function on a new goroutine. The algorithms are the
// standard library's, operation for operation, so the interleavings weft
// explores are those of real contexts. A context made by WithTimeout or
// WithDeadline whose cancel function is never called is no leak, as in Go:
// its timer fires, or is still set when the program ends.
package context

import (
	"context"
	"reflect"
	"slices"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
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
func (c *afterFuncCtx) String() string       { return "context.AfterFunc" }

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
	c := withCancel(parent)
	return c, func() { c.cancel(true, Canceled, nil) }
}

// WithCancelCause behaves like WithCancel but returns a CancelCauseFunc:
// calling it with a non-nil error records that error as the cause, which
// Cause returns.
func WithCancelCause(parent Context) (ctx Context, cancel CancelCauseFunc) {
	c := withCancel(parent)
	return c, func(cause error) { c.cancel(true, Canceled, cause) }
}

func withCancel(parent Context) *cancelCtx {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	c := newCancelCtx(parent)
	c.propagateCancel(parent, c)
	return c
}

func newCancelCtx(parent Context) *cancelCtx {
	return &cancelCtx{Context: parent, done: weft.MakeChan[struct{}](0)}
}

// Cause returns a non-nil error explaining why c was canceled: the cause
// given to its CancelCauseFunc, or else its Err. It returns nil while c is
// not canceled.
func Cause(c Context) error {
	if cc, ok := c.Value(&cancelCtxKey).(*cancelCtx); ok {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		return cc.cause
	}
	return c.Err()
}

// AfterFunc arranges to call f on its own goroutine after ctx is done
// (canceled or timed out); if ctx is already done, it calls f at once on
// its own goroutine. Calling stop stops the association of ctx with f: it
// returns true if that stopped f from being run.
func AfterFunc(ctx Context, f func()) (stop func() bool) {
	a := &afterFuncCtx{f: f}
	a.cancelCtx = *newCancelCtx(ctx)
	a.propagateCancel(ctx, a)
	return func() bool {
		stopped := false
		a.once.Do(func() { stopped = true })
		if stopped {
			a.cancel(true, Canceled, nil)
		}
		return stopped
	}
}

type afterFuncCtx struct {
	cancelCtx
	once sync.Once // either starts running f or stops f from running
	f    func()
}

func (a *afterFuncCtx) cancel(removeFromParent bool, err, cause error) {
	a.cancelCtx.cancel(false, err, cause)
	if removeFromParent {
		removeChild(a.Context, a)
	}
	a.once.Do(func() { weft.Go(a.f) })
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

// removeChild removes a context from its parent.
func removeChild(parent Context, child canceler) {
	p, ok := parentCancelCtx(parent)
	if !ok {
		return
	}
	p.mu.Lock()
	if i := slices.Index(p.children, child); i >= 0 {
		p.children = slices.Delete(p.children, i, i+1)
	}
	p.mu.Unlock()
}

// A canceler is a context that can be canceled directly.
type canceler interface {
	cancel(removeFromParent bool, err, cause error)
	Done() *weft.Chan[struct{}]
}

// A cancelCtx can be canceled. When canceled, it also cancels its
// children.
type cancelCtx struct {
	Context // the parent

	mu       sync.Mutex            // protects the fields below and the cancellation
	done     *weft.Chan[struct{}]  // closed by the first cancel
	err      atomic.Pointer[error] // set by the first cancel
	children []canceler            // in the order they were made (a map would iterate at random)
	cause    error                 // set by the first cancel
}

func (c *cancelCtx) Value(key any) any {
	if key == &cancelCtxKey {
		return c
	}
	return value(c.Context, key)
}

func (c *cancelCtx) Done() *weft.Chan[struct{}] { return c.done }

func (c *cancelCtx) Err() error {
	if p := c.err.Load(); p != nil {
		return *p
	}
	return nil
}

// propagateCancel arranges for child to be canceled when parent is.
func (c *cancelCtx) propagateCancel(parent Context, child canceler) {
	done := parent.Done()
	if done == nil {
		return // parent is never canceled
	}
	if p, ok := parentCancelCtx(parent); ok {
		p.mu.Lock()
		if err := p.err.Load(); err != nil {
			// The parent has already been canceled.
			child.cancel(false, *err, p.cause)
		} else {
			p.children = append(p.children, child)
		}
		p.mu.Unlock()
		return
	}
	// A Context of the program's own: watch it, as the standard library
	// does.
	weft.Go(func() {
		if weft.Select(done.RecvCase(nil, nil), child.Done().RecvCase(nil, nil)) == 0 {
			child.cancel(false, parent.Err(), Cause(parent))
		}
	})
}

// cancel closes c.done, cancels each of c's children and, if
// removeFromParent is true, removes c from its parent's children. A nil
// cause is err.
func (c *cancelCtx) cancel(removeFromParent bool, err, cause error) {
	if err == nil {
		panic("context: internal error: missing cancel error")
	}
	if cause == nil {
		cause = err
	}
	c.mu.Lock()
	if c.err.Load() != nil {
		c.mu.Unlock()
		return // already canceled
	}
	c.err.Store(&err)
	c.cause = cause
	c.done.Close()
	for _, child := range c.children {
		// Holds the parent's lock while taking the child's, as the
		// standard library does.
		child.cancel(false, err, cause)
	}
	c.children = nil
	c.mu.Unlock()
	if removeFromParent {
		removeChild(c.Context, c)
	}
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
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		// The current deadline is already sooner than the new one.
		return WithCancel(parent)
	}
	c := &timerCtx{deadline: d}
	c.cancelCtx = *newCancelCtx(parent)
	c.propagateCancel(parent, c)
	dur := wtime.Until(d)
	if dur <= 0 {
		c.cancel(true, DeadlineExceeded, cause) // the deadline has already passed
		return c, func() { c.cancel(false, Canceled, nil) }
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err.Load() == nil {
		c.timer = wtime.AfterFunc(dur, func() {
			c.cancel(true, DeadlineExceeded, cause)
		})
	}
	return c, func() { c.cancel(true, Canceled, nil) }
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

// A timerCtx is a cancelCtx with a deadline, and the timer that cancels it
// then.
type timerCtx struct {
	cancelCtx
	timer    *wtime.Timer // under cancelCtx.mu
	deadline time.Time
}

func (c *timerCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *timerCtx) cancel(removeFromParent bool, err, cause error) {
	c.cancelCtx.cancel(false, err, cause)
	if removeFromParent {
		// Remove this timerCtx from its parent cancelCtx's children.
		removeChild(c.cancelCtx.Context, c)
	}
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
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
		case *afterFuncCtx:
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
