// Package rewritten holds what code rewritten by weft test calls where a
// construct of plain Go has no single counterpart in weft's API: a receive
// used as a value, a range over a channel, make of a named channel type,
// the receive cases of a select that assign what they received, the
// failures of a test that let it go on, subtests that are not function
// literals of a test, and examples; and what makes plain Go's random
// choices the same in every execution: a range over a map (in its keys'
// order), math/rand's functions and the runtime's random numbers.
//
// Programs written against weft's API do not need it; the rewriter
// (internal/rewrite) documents which construct becomes what.
package rewritten

import (
	"fmt"
	"iter"
	"os"
	"strings"
	"testing"

	"weft.dev/weft"
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

// MakeLike makes a channel of like's element type with the given buffer
// capacity: make(N, capacity) for a named channel type N with methods,
// which the rewrite makes a struct that embeds its channel, as
// N{MakeLike(N{}.Chan, capacity)}. like is not used, only its type.
func MakeLike[T any](like *weft.Chan[T], capacity int) *weft.Chan[T] {
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

// Fatal is t.Fatal in a test that weft test rewrote, as Error: the
// message is the report's, not the test log's, where each replay of the
// execution (to minimize it, to trace it) would write it again.
func Fatal(t testing.TB, args ...any) {
	t.Helper()
	if runtime.Outside() {
		t.Fatal(args...)
		return
	}
	weft.Assert(false, "%s", strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
}

// Fatalf is t.Fatalf in a test that weft test rewrote, as Fatal.
func Fatalf(t testing.TB, format string, args ...any) {
	t.Helper()
	if runtime.Outside() {
		t.Fatalf(format, args...)
		return
	}
	weft.Assert(false, format, args...)
}

// FailNow is t.FailNow in a test that weft test rewrote, as Fatal.
func FailNow(t testing.TB) {
	t.Helper()
	if runtime.Outside() {
		t.FailNow()
		return
	}
	weft.Assert(false, "the test failed (t.FailNow)")
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

// Cleanup is t.Cleanup in a test that weft test rewrote: inside a check,
// f runs in each execution when the body returns, the last added first, as
// testing runs it when the test returns (testing would run it after the
// check, outside it, where a channel operation of f's panicked; and a
// goroutine that f would have let go was a leak); outside, testing's.
func Cleanup(t testing.TB, f func()) {
	t.Helper()
	if runtime.Outside() {
		t.Cleanup(f)
		return
	}
	runtime.Cleanup(f)
}

// Parallel is t.Parallel in a test that weft test rewrote, where it is not
// the first statement of the test (which stays testing's, outside the
// check): inside a check it runs on a goroutine of weft's, where testing's
// would wait for the parent test to finish outside any weft operation. The
// test runs serially instead, as it would had it not called t.Parallel.
func Parallel(t testing.TB) {}

// Run is t.Run in a test that weft test rewrote, where the rewriter does
// not see the subtest's body (f is not a function literal of a test): f
// is explored as a body of its own. Called inside a check (by a helper of
// a test that does not call t.Run itself, which is checked as one body:
// go.uber.org/ratelimit's tests run each through a helper that runs a
// subtest per limiter), checks do not nest: f runs as a part of the
// check's body, on a goroutine of its own that the caller waits for, as
// testing runs a subtest, with t for its *testing.T. Its failures are the
// test's, and the check explores its executions with those of what the
// test does around it.
func Run(t *testing.T, name string, f func(t *testing.T)) bool {
	t.Helper()
	if !runtime.Outside() {
		weft.Go(func() { f(t) }).Join()
		return true
	}
	return t.Run(name, func(t *testing.T) { Check(t, func() { f(t) }) })
}

// Check is weft.Check for a test that weft test rewrote, whose body need
// not use weft at all: a test of code without goroutines, or one that runs
// a command, whose library starts goroutines of its own, passes as it does
// under go test, where weft.Check reports a body in plain Go.
func Check(t testing.TB, body func()) weft.Result {
	t.Helper()
	// weft.Check knows its caller.
	return weft.Check(t, body)
}

// Example is the body of an example function (ExampleXxx) that weft test
// rewrote: body is explored as a check's, and only the output of its first
// execution goes to the standard output, where go test compares it with
// the example's // Output comment; the others' is discarded, or the
// example would print it once per execution. A bug is reported on the
// standard output too, which makes the example fail with its report as
// what it printed.
func Example(name string, body func()) {
	stdout := os.Stdout
	discard, err := os.Open(os.DevNull)
	if err != nil {
		fmt.Printf("weft: %s: %v\n", name, err)
		return
	}
	defer discard.Close()
	first := true
	defer func() { os.Stdout = stdout }()
	Check(&exampleT{name: name, out: stdout}, func() {
		// Examples run one at a time, after the tests: nothing else
		// writes to os.Stdout meanwhile.
		if !first {
			os.Stdout = discard
		}
		first = false
		body()
	})
}

// exampleT is the testing.TB that Example gives weft.Check, which calls
// only the methods it defines: an example has no *testing.T, and what
// fails it is its output.
type exampleT struct {
	testing.TB
	name string
	out  *os.File // the standard output go test compares
}

func (t *exampleT) Helper()      {}
func (t *exampleT) Name() string { return t.name }

func (t *exampleT) Errorf(format string, args ...any) { fmt.Fprintf(t.out, format+"\n", args...) }

func (t *exampleT) Fatal(args ...any) { fmt.Fprintln(t.out, args...) }
