package rewritten

import (
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/runtime"
)

// A Reporter is the *testing.T of a test that weft test rewrote, as the
// test hands it to a package that is not rewritten, which takes it as an
// interface (testify's assert and require take their TestingT): inside a
// check its failures are the execution's, as the test's own are (see
// Error), at the line of the call it was handed to. They went to the
// test's log, once for each replay of the execution, with no interleaving,
// and an Errorf let the execution go on; a FailNow ended the body,
// reported without the message. Outside a check, and for its other
// methods, it is the test's.
type Reporter struct {
	*testing.T
	// at is the program counter of the call that handed it over, which
	// a failure resolves: resolving it at every call of an assertion cost
	// 2.3 µs, as much as an execution's operations.
	at [1]uintptr
}

// Report returns t as a Reporter, handed over by the caller.
func Report(t *testing.T) *Reporter {
	r := &Reporter{T: t}
	goruntime.Callers(2, r.at[:])
	return r
}

// fail ends the execution with the failure msg, at the call that handed r
// over.
func (r *Reporter) fail(msg string) {
	f, _ := goruntime.CallersFrames(r.at[:]).Next()
	runtime.FailAt(engine.AssertionFailed, msg, runtime.Pos{Func: f.Function, File: f.File, Line: f.Line})
}

// Error is t.Error.
func (r *Reporter) Error(args ...any) {
	r.T.Helper()
	if runtime.Outside() {
		r.T.Error(args...)
		return
	}
	r.fail(strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
}

// Errorf is t.Errorf.
func (r *Reporter) Errorf(format string, args ...any) {
	r.T.Helper()
	if runtime.Outside() {
		r.T.Errorf(format, args...)
		return
	}
	r.fail(fmt.Sprintf(format, args...))
}

// Fail is t.Fail.
func (r *Reporter) Fail() {
	r.T.Helper()
	if runtime.Outside() {
		r.T.Fail()
		return
	}
	r.fail("the test failed (t.Fail)")
}

// FailNow is t.FailNow.
func (r *Reporter) FailNow() {
	r.T.Helper()
	if runtime.Outside() {
		r.T.FailNow()
		return
	}
	r.fail("the test failed (t.FailNow)")
}

// Fatal is t.Fatal.
func (r *Reporter) Fatal(args ...any) {
	r.T.Helper()
	if runtime.Outside() {
		r.T.Fatal(args...)
		return
	}
	r.fail(strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
}

// Fatalf is t.Fatalf.
func (r *Reporter) Fatalf(format string, args ...any) {
	r.T.Helper()
	if runtime.Outside() {
		r.T.Fatalf(format, args...)
		return
	}
	r.fail(fmt.Sprintf(format, args...))
}
