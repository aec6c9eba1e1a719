// Command chanleak checks the classic leak of a "first answer wins" query:
// the body asks two replicas and takes the first answer from an unbuffered
// channel, and the replica that answers second blocks forever on its send.
// weft reports the leaked goroutine and the channel it waits on. The fix is
// a channel with room for every answer: weft.MakeChan[string](2).
package main

import (
	"weft.dev/weft"
	"weft.dev/weft/examples/internal/demo"
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

func main() { demo.Main(query) }
