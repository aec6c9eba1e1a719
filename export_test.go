package weft

import "time"

// StopAfter stops a checkpointed exploration after n executions, as an
// interrupt would.
func StopAfter(n int64) Option { return func(c *config) { c.stopAfter = n } }

// ForgetInterrupt lets the checkpointed checks run again after a test
// interrupted one, which in a process stops the later ones.
func ForgetInterrupt() { interruptedBefore.Store(false) }

// ForgetGraph lets a test write WEFT_GRAPH again, which a process does once.
func ForgetGraph() { graphWritten.Store(false) }

// Budget is the timeout of an exploration with the timeout timeout (0 for
// none) that Check runs at now under go test's deadline (zero for none).
func Budget(timeout time.Duration, deadline, now time.Time) (time.Duration, bool) {
	c := &config{timeout: timeout, deadline: deadline}
	return c.budget(now)
}

// Named names an exploration as Check names its check.
func Named(name string) Option { return named(name) }
