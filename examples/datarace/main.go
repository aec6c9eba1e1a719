// Command datarace checks a "done" flag published through a plain
// variable: the worker writes the result and then the flag, the reader
// polls the flag. Without synchronization the two accesses to the flag race
// (and the reader could see the flag before the result).
package main

import (
	"fmt"
	"os"

	"weft.dev/weft"
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

func main() {
	res, err := weft.Explore(publish)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("weft explored %d executions\n\n", res.Executions)
	for _, b := range res.Bugs {
		fmt.Println(b)
		os.Exit(1)
	}
	fmt.Println("no bug found")
}
