// Package rewritten holds what code rewritten by weft test calls where a
// construct of plain Go has no single counterpart in weft's API: a receive
// used as a value, a range over a channel, make of a named channel type,
// the receive cases of a select that assign what they received, the
// failures of a test that let it go on, and subtests that are not
// function literals of a test.
//
// Programs written against weft's API do not need it; the rewriter
// (internal/rewrite) documents which construct becomes what.
package rewritten

import (
	"fmt"
	"iter"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/runtime"
)

// Recv receives from c and returns the value: the expression <-c.
func Recv[T any](c *weft.Chan[T]) T {
	v, _ := c.Recv()
	return v
}

// Range yields the values received from c until it is closed and drained:
// for v := range c.
func Range[T any](c *weft.Chan[T]) iter.Seq[T] {
	return func(yield func(T) bool) {
		for {
			v, ok := c.Recv()
			if !ok || !yield(v) {
				return
			}
		}
	}
}

// Make makes a channel of the named channel type C with the given buffer
// capacity: make(C, capacity), where C was declared as a chan type.
func Make[C ~*weft.Chan[T], T any](capacity int) C {
	return weft.MakeChan[T](capacity)
}

// A Received is a receive case of a select whose case assigns or declares
// what it received: case v, ok := <-c.
type Received[T any] struct {
	c  *weft.Chan[T]
	V  T    // the value received, once the case is chosen
	OK bool // false when V is the zero value of a closed, drained channel
}

// Receive returns the receive case on c of a select.
func Receive[T any](c *weft.Chan[T]) *Received[T] { return &Received[T]{c: c} }

// Case returns the case for weft.Select; it sets V and OK when chosen.
func (r *Received[T]) Case() weft.SelectCase { return r.c.RecvCase(&r.V, &r.OK) }

// Error is t.Error in a test that weft test rewrote: a failure of the
// execution, reported as an assertion failure with its interleaving (the
// goroutine ends there, as with t.Fatal). Called outside a check (by a
// helper of a test that runs subtests, in its own code), it is t.Error.
func Error(t testing.TB, args ...any) {
	t.Helper()
	if runtime.Outside() {
		t.Error(args...)
		return
	}
	weft.Assert(false, "%s", strings.TrimSuffix(fmt.Sprintln(args...), "\n")) // as testing formats it
}

// Errorf is t.Errorf in a test that weft test rewrote, as Error.
func Errorf(t testing.TB, format string, args ...any) {
	t.Helper()
	if runtime.Outside() {
		t.Errorf(format, args...)
		return
	}
	weft.Assert(false, format, args...)
}

// Fail is t.Fail in a test that weft test rewrote, as Error.
func Fail(t testing.TB) {
	t.Helper()
	if runtime.Outside() {
		t.Fail()
		return
	}
	weft.Assert(false, "the test failed (t.Fail)")
}

// Run is t.Run in a test that weft test rewrote, where the rewriter does
// not see the subtest's body (f is not a function literal of a test): f
// is explored as a body of its own. Called inside a check (by a helper of
// a test that does not call t.Run itself, which is checked as one body),
// it is a Misuse bug: checks do not nest.
func Run(t *testing.T, name string, f func(t *testing.T)) bool {
	t.Helper()
	if !runtime.Outside() {
		runtime.Fail(engine.Misuse, fmt.Sprintf("t.Run(%q) inside a check, which cannot run another: weft test checks the subtests of a test that calls t.Run itself, each as a body, and this test as one body", name))
	}
	return t.Run(name, func(t *testing.T) { weft.Check(t, func() { f(t) }) })
}
