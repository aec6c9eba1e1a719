package runtime

import (
	"runtime/metrics"
	"sync"
)

// A body written in plain Go (the go statement, sync, channels) performs
// no operation that weft models: it runs once, its goroutines outside the
// checker, and the check would pass having explored nothing. The first
// execution of a check counts the goroutines that the process creates
// meanwhile, weft's own aside (runtime/metrics counts them all);
// when that execution performed no operation, goroutines created are
// reported (Report.Unmodelled). Other goroutines of the process (another
// test's, the collector's first workers) may be counted too, but only in
// an execution that performed nothing, whose check checks nothing anyway,
// and weft runs such a body once more before it reports it.
// A test that weft test wrapped in a check need not use weft at all (a test
// of plain code, one that runs a command): Config.Wrapped says so.

// own counts the goroutines weft created in the process: its coroutines
// and its goroutines of GoInternal. Its lock makes a creation and its count
// one step for othersCreated.
var own struct {
	mu      sync.Mutex
	created uint64
}

// GoInternal runs f on a new goroutine of weft's own (a driver's, a
// worker of a parallel exploration), not counted as the program's.
func GoInternal(f func()) {
	own.mu.Lock()
	defer own.mu.Unlock()
	own.created++
	go f()
}

// createdMetric counts every goroutine the process created.
const createdMetric = "/sched/goroutines-created:goroutines"

// othersCreated returns how many goroutines other than weft's own the
// process created so far.
func othersCreated() uint64 {
	s := [1]metrics.Sample{{Name: createdMetric}}
	own.mu.Lock()
	defer own.mu.Unlock()
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0 // a Go without the metric: nothing is reported
	}
	return s[0].Value.Uint64() - own.created
}
