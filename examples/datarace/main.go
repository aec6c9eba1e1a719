// Command datarace checks a "done" flag published through a plain
// variable: the worker writes the result and then the flag, the reader
// polls the flag. Without synchronization the two accesses to the flag race
// (and the reader could see the flag before the result).
package main

import (
	"weft.dev/weft"
	"weft.dev/weft/examples/internal/demo"
)

// publish is the body of the check: a worker publishes a result and a
// flag, the body polls the flag.
func publish() {
	var result weft.Var[int]
	var done weft.Var[bool] // should be an atomic.Bool
	weft.Go(func() {
		result.Store(42)
		done.Store(true)
	})
	if done.Load() {
		weft.Assert(result.Load() == 42, "saw done before the result")
	}
}

func main() { demo.Main(publish) }
