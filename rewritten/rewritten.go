// Package rewritten holds what code rewritten by weft test calls where a
// construct of plain Go has no single counterpart in weft's API: a receive
// used as a value, a range over a channel, make of a named channel type,
// the receive cases of a select that assign what they received, and the
// failures of a test that let it go on.
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
// goroutine ends there, as with t.Fatal).
func Error(t testing.TB, args ...any) {
	t.Helper()
	weft.Assert(false, "%s", strings.TrimSuffix(fmt.Sprintln(args...), "\n")) // as testing formats it
}

// Errorf is t.Errorf in a test that weft test rewrote, as Error.
func Errorf(t testing.TB, format string, args ...any) {
	t.Helper()
	weft.Assert(false, format, args...)
}

// Fail is t.Fail in a test that weft test rewrote, as Error.
func Fail(t testing.TB) {
	t.Helper()
	weft.Assert(false, "the test failed (t.Fail)")
}
