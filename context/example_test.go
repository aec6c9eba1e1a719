package context_test

import (
	"errors"
	"fmt"

	"weft.dev/weft"
	"weft.dev/weft/context"
	"weft.dev/weft/time"
)

// Waiting for a context's deadline: in every execution (the deferred
// cancel races with the timer's), Err is DeadlineExceeded once Done is
// closed.
func ExampleWithTimeout() {
	exceeded := true
	weft.Explore(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		ctx.Done().Recv()
		exceeded = exceeded && errors.Is(ctx.Err(), context.DeadlineExceeded)
	})
	fmt.Println(exceeded)
	// Output: true
}

// Canceling a parent cancels its children.
func ExampleWithCancel() {
	weft.Explore(func() {
		parent, cancel := context.WithCancel(context.Background())
		child, stop := context.WithCancel(parent)
		defer stop()
		cancel()
		child.Done().Recv()
		fmt.Println(child.Err())
	})
	// Output: context canceled
}
