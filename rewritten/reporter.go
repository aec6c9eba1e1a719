package rewritten

import "testing"

// A Reporter is the *testing.T of a test that weft test rewrote, as the
// test hands it to a package that is not rewritten, which takes it as an
// interface (testify's assert and require take their TestingT): its
// failures are the execution's, as the test's own are (see Error). They
// went to the test's log, once for each replay of the execution, with no
// interleaving, and an Errorf let the execution go on; a FailNow ended the
// body, reported without the message. Its other methods are the test's.
type Reporter struct{ *testing.T }

// Report returns t as a Reporter.
func Report(t *testing.T) *Reporter { return &Reporter{t} }

// Error is Error(r.T, args...).
func (r *Reporter) Error(args ...any) {
	r.T.Helper()
	Error(r.T, args...)
}

// Errorf is Errorf(r.T, format, args...).
func (r *Reporter) Errorf(format string, args ...any) {
	r.T.Helper()
	Errorf(r.T, format, args...)
}

// Fail is Fail(r.T).
func (r *Reporter) Fail() {
	r.T.Helper()
	Fail(r.T)
}

// FailNow is FailNow(r.T).
func (r *Reporter) FailNow() {
	r.T.Helper()
	FailNow(r.T)
}

// Fatal is Fatal(r.T, args...).
func (r *Reporter) Fatal(args ...any) {
	r.T.Helper()
	Fatal(r.T, args...)
}

// Fatalf is Fatalf(r.T, format, args...).
func (r *Reporter) Fatalf(format string, args ...any) {
	r.T.Helper()
	Fatalf(r.T, format, args...)
}
