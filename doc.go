// Package weft is a stateless model checker for concurrent Go code.
//
// A check runs a function, the body, over and over, each time in another
// interleaving of its goroutines, until every execution that can behave
// differently has been run. A bug found in any of them (an assertion that
// fails, a panic, a deadlock, a data race, a leaked goroutine) is reported
// with the exact interleaving that leads to it and a token that replays it.
//
// The program under test uses weft's counterparts of the language's
// concurrency: Go instead of the go statement, and the types of the
// packages weft/sync and weft/atomic instead of sync and sync/atomic. Shared
// plain memory is a Var, so that races on it are found.
//
// A test that finds a lost update:
//
//	func TestCounter(t *testing.T) {
//		weft.Check(t, func() {
//			var n atomic.Int64
//			inc := func() { n.Store(n.Load() + 1) } // should be n.Add(1)
//			g := weft.Go(inc)
//			inc()
//			g.Join()
//			weft.Assert(n.Load() == 2, "n = %d", n.Load())
//		})
//	}
//
// Check fails the test with a report like
//
//	assertion failed: n = 1
//	...
//	    1  g0   load atomic#0 = 0 (initial)      counter_test.go:12
//	    2  g1   load atomic#0 = 0 (initial)      counter_test.go:12
//	    3  g1   store atomic#0 = 1               counter_test.go:12
//	    5  g0   store atomic#0 = 1               counter_test.go:12
//	...
//	rerun just this execution:
//	  WEFT_REPLAY=weft1-… go test -run '^TestCounter$' example.com/counter
//
// Each execution allocates the body's objects anew. Objects created outside
// the body (package-level variables) are reset to their zero value at the
// start of every execution. The body and the goroutines it starts must be
// deterministic apart from what weft controls: map iteration order, time,
// math/rand and goroutines not started with Go make an execution impossible
// to replay, which is reported as a Nondeterminism bug.
//
// Only one check runs at a time in a process; checks started concurrently
// (parallel tests) wait for each other.
package weft
