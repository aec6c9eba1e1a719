package context

import (
	"time"

	"weft.dev/weft"
	"weft.dev/weft/internal/runtime"
	wtime "weft.dev/weft/time"
)

// An outsideCtx is a context made by WithCancel, WithDeadline or their
// kin outside any check: by the code of a test around its subtests, which
// weft test runs as plain Go (ctx, cancel := context.WithTimeout(...)
// before a loop of t.Run, jonboulle/clockwork's tests), or as a package
// initializes. Outside a check it behaves as the standard library's, in
// virtual time, which stands still there (see weft/time's Now): its cancel
// sets its error, and its children's. In each execution of a check that
// uses it, it is a context of that execution, made at its first use (as a
// channel made outside a check is): with the same parent and deadline,
// canceled from the start if it was canceled before the check; a deadline
// passes in the execution's virtual time, as one set inside would.
type outsideCtx struct {
	Context // the parent

	deadline    time.Time // with hasDeadline: the deadline given, or the parent's when sooner
	hasDeadline bool
	dlCause     error // the cause of a deadline that passes (WithDeadlineCause)
	err, cause  error // set by a cancel outside any check
	inner       runtime.Local[Context]
}

// outsideKey is the key for which an outsideCtx returns itself, outside
// any check (see Cause).
var outsideKey int

// withOutside returns a context of parent made outside any check, with
// deadline d when hasDeadline (or the parent's, when sooner), canceled at
// once when that has passed.
func withOutside(parent Context, d time.Time, hasDeadline bool, dlCause error) *outsideCtx {
	c := &outsideCtx{Context: parent, dlCause: dlCause}
	if cur, ok := parent.Deadline(); ok && (!hasDeadline || cur.Before(d)) {
		d, hasDeadline, c.dlCause = cur, true, nil
	}
	c.deadline, c.hasDeadline = d, hasDeadline
	if hasDeadline && wtime.Until(d) <= 0 {
		c.cancel(DeadlineExceeded, dlCause)
	}
	return c
}

// cancel cancels c: outside any check for good, inside one for the
// running execution only.
func (c *outsideCtx) cancel(err, cause error) {
	if !runtime.Outside() {
		c.execution().(canceler).cancel(err, cause)
		return
	}
	if c.Err() == nil { // not canceled, nor its parent
		if cause == nil {
			cause = err
		}
		c.err, c.cause = err, cause
	}
}

// execution returns c's context in the running execution, made at the
// first use there. Two goroutines may both find it unmade, making it being
// operations, after which another goroutine may run: the first to have
// made one sets it, and the other's stays unused (its timer, if it has one,
// cancels nothing that the program sees).
func (c *outsideCtx) execution() Context {
	l := c.inner.Get("context (made outside any check)")
	if *l == nil {
		var ctx canceler
		switch {
		case !c.hasDeadline:
			ctx = withCancel(c.Context)
			if c.err != nil {
				ctx.cancel(c.err, c.cause)
			}
		case c.err != nil:
			// Canceled before the check: no timer, which could fire
			// before the cancel.
			t := newTimerCtx(c.Context, c.deadline)
			if !propagateCancel(c.Context, t) {
				t.cancel(c.err, c.cause)
			}
			ctx = t
		default:
			dl, _ := WithDeadlineCause(c.Context, c.deadline, c.dlCause)
			ctx = dl.(canceler)
		}
		if *l == nil {
			*l = ctx.(Context)
		}
	}
	return *l
}

func (c *outsideCtx) Deadline() (time.Time, bool) {
	if runtime.Outside() {
		return c.deadline, c.hasDeadline
	}
	return c.execution().Deadline()
}

// Done returns nil outside any check, where no channel can be waited on.
func (c *outsideCtx) Done() *weft.Chan[struct{}] {
	if runtime.Outside() {
		return nil
	}
	return c.execution().Done()
}

func (c *outsideCtx) Err() error {
	if runtime.Outside() {
		if c.err != nil {
			return c.err
		}
		return c.Context.Err()
	}
	return c.execution().Err()
}

func (c *outsideCtx) Value(key any) any {
	if runtime.Outside() {
		if key == &outsideKey {
			return c
		}
		if key == &cancelCtxKey {
			return nil
		}
		return value(c.Context, key)
	}
	return c.execution().Value(key)
}

// causeOutside is Cause of c outside any check.
func (c *outsideCtx) causeOutside() error {
	if c.err != nil {
		return c.cause
	}
	return Cause(c.Context)
}

func (c *outsideCtx) String() string { return "context (made outside any check)" }
