package rewritten

import "weft.dev/weft/internal/runtime"

// go.uber.org/goleak's VerifyNone and Find look at every goroutine of the
// process: inside a check they find its own (the exploration's, and the
// execution's parked goroutines) and report them as leaks. weft finds the
// execution's leaks itself (a goroutine still blocked when the execution
// ends, with its interleaving), so inside a check the rewrite has them do
// nothing; outside one (TestMain, a test's code around its subtests) they
// run.

// OutsideOnly calls f(t, opts...) outside any check: goleak.VerifyNone(t,
// opts...). t is goleak's TestingT, which a *testing.T is.
func OutsideOnly[T, O any](f func(T, ...O), t any, opts ...O) {
	if runtime.Outside() {
		f(t.(T), opts...)
	}
}

// OutsideOnlyErr returns f(opts...) outside any check, nil inside one:
// goleak.Find(opts...).
func OutsideOnlyErr[O any](f func(...O) error, opts ...O) error {
	if runtime.Outside() {
		return f(opts...)
	}
	return nil
}
