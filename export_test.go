package weft

// StopAfter stops a checkpointed exploration after n executions, as an
// interrupt would.
func StopAfter(n int64) Option { return func(c *config) { c.stopAfter = n } }

// ForgetGraph lets a test write WEFT_GRAPH again, which a process does once.
func ForgetGraph() { graphWritten.Store(false) }
