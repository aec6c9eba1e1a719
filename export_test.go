package weft

// ForgetGraph lets a test write WEFT_GRAPH again, which a process does once.
func ForgetGraph() { graphWritten.Store(false) }
