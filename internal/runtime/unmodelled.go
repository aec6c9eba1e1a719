package runtime

import (
	"runtime/metrics"
	"sync"
)

// A body written in plain Go (the go statement, sync, channels) performs
// no operation that weft models: it runs once, its goroutines outside the
// checker, and the check would pass having explored nothing. The first
// execution of a check counts the goroutines that the process creates
// meanwhile, weft's coroutines aside (runtime/metrics counts them all);
// when that execution performed no operation, goroutines created are
// reported (Report.Unmodelled). Other goroutines of the process (another
// test's, the collector's first workers) may be counted too, but only in
// an execution that performed nothing, whose check checks nothing anyway.
// A test that weft test wrapped in a check need not use weft at all (a test
// of plain code, one that runs a command): Config.Wrapped says so.

// coroutines counts the goroutines weft created in the process: its
// coroutines and its own goroutines (GoInternal). Its lock makes a creation
// and its count one step for othersCreated.
var coroutines struct {
	mu      sync.Mutex
	created uint64
}

// GoInternal runs f on a new goroutine of weft's own (a driver's, a
// worker of a parallel exploration), not counted as the program's.
func GoInternal(f func()) {
	coroutines.mu.Lock()
	defer coroutines.mu.Unlock()
	coroutines.created++
	go f()
}

// createdMetric counts every goroutine the process created.
const createdMetric = "/sched/goroutines-created:goroutines"

// othersCreated returns how many goroutines other than weft's coroutines
// the process created so far.
func othersCreated() uint64 {
	s := [1]metrics.Sample{{Name: createdMetric}}
	coroutines.mu.Lock()
	defer coroutines.mu.Unlock()
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0 // a Go without the metric: nothing is reported
	}
	return s[0].Value.Uint64() - coroutines.created
}
