// Command lostupdate checks a counter that two goroutines increment with a
// Load followed by a Store: in one interleaving both load 0, and one
// increment is lost. weft finds that interleaving and prints it.
package main

import (
	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/examples/internal/demo"
)

// counter is incremented non-atomically: the bug.
type counter struct{ n atomic.Int64 }

func (c *counter) inc() { c.n.Store(c.n.Load() + 1) }

// incrementTwice is the body of the check: two goroutines increment a
// counter.
func incrementTwice() {
	var c counter
	g := weft.Go(c.inc)
	c.inc()
	g.Join()
	weft.Assert(c.n.Load() == 2, "lost update: two increments made the counter %d", c.n.Load())
}

func main() { demo.Main(incrementTwice) }
