// Command chanleak checks the classic leak of a "first answer wins" query:
// the body asks two replicas and takes the first answer from an unbuffered
// channel, and the replica that answers second blocks forever on its send.
// weft reports the leaked goroutine and the channel it waits on. The fix is
// a channel with room for every answer: weft.MakeChan[string](2).
package main

import (
	"fmt"
	"os"

	"weft.dev/weft"
)

// first asks every replica and returns the first answer.
func first(replicas ...string) string {
	answers := weft.MakeChan[string](0) // the bug: no room for the late answers
	for _, r := range replicas {
		weft.Go(func() { answers.Send("answer from " + r) })
	}
	a, _ := answers.Recv()
	return a
}

// query is the body of the check.
func query() {
	a := first("replica-1", "replica-2")
	weft.Assert(a != "", "no answer")
}

func main() {
	res, err := weft.Explore(query)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("weft explored %d executions and found %d bugs\n\n", res.Executions, len(res.Bugs))
	for _, b := range res.Bugs {
		fmt.Println(b)
	}
	if len(res.Bugs) > 0 {
		os.Exit(1)
	}
	fmt.Println("no bug found")
}
