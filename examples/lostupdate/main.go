// Command lostupdate checks a counter that two goroutines increment with a
// Load followed by a Store: in one interleaving both load 0, and one
// increment is lost. weft finds that interleaving and prints it.
package main

import (
	"fmt"
	"os"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
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

func main() {
	res, err := weft.Explore(incrementTwice)
	os.Exit(report(res, err))
}

// report prints the outcome of a check and returns the exit status.
func report(res weft.Result, err error) int {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Printf("weft explored %d executions (%d complete, %d blocked) with %s in %v\n\n",
		res.Executions, res.Complete, res.Blocked, res.Engine, res.Elapsed)
	for _, b := range res.Bugs {
		fmt.Println(b)
	}
	if len(res.Bugs) > 0 {
		return 1
	}
	fmt.Println("no bug found")
	return 0
}
