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
// Check fails the test with a report: the interleaving as a table with a
// column per goroutine and a row per operation, and the commands that rerun
// just that execution,
//
//	weft: assertion failed: n = 1
//
//	    | g0 counter.TestCounter.func1                    | g1 counter.TestCounter.func1.1
//	    | the body                                        | go at counter_test.go:14 in g0
//	----+-------------------------------------------------+------------------------------------------------
//	  1 | go g1                        counter_test.go:14 |
//	  2 | load atomic#0 = 0 (initial)  counter_test.go:13 |
//	  3 |                                                 | load atomic#0 = 0 (initial)  counter_test.go:13
//	  4 |                                                 | store atomic#0 = 1           counter_test.go:13
//	  5 |                                                 | return
//	  6 | store atomic#0 = 1           counter_test.go:13 |
//	  7 | join g1                      counter_test.go:16 |
//	  8 | load atomic#0 = 1 (from #6)  counter_test.go:17 |
//	  9 | load atomic#0 = 1 (from #6)  counter_test.go:17 |
//	>10 | assert failed                counter_test.go:17 |
//	minimized: this execution has 2 goroutine switches, the one found had 4
//	...
//	rerun just this execution:
//	  weft test -run '^TestCounter$' -replay weft3-… example.com/counter
//	  WEFT_REPLAY=weft3-… go test -run '^TestCounter$' example.com/counter
//
// The weft command (weft.dev/weft/cmd/weft) runs go test with the options
// as flags, and can write the execution graph of a bug as a Graphviz file
// or an HTML page.
//
// Each execution allocates the body's objects anew. Objects created outside
// the body (package-level variables) are reset to their zero value at the
// start of every execution. The body and the goroutines it starts must be
// deterministic apart from what weft controls: map iteration order, time,
// math/rand and goroutines not started with Go make an execution impossible
// to replay, which is reported as a Nondeterminism bug. (Code that the
// weft command rewrites ranges over maps in their keys' order and draws
// math/rand's numbers from a sequence of its goroutine's, the same in
// every execution.)
//
// Any number of checks run at once in a process (parallel tests), each
// with its own state: a check finds what it finds alone, even when the
// bodies of checks running at once share package-level objects.
package weft
