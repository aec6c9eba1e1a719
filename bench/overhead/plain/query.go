package plain

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Query asks n replicas for an answer with a timeout and takes the first:
// each replica selects between sending its answer and the end of the
// context, which the caller cancels once it has an answer or the timeout
// fired, and then waits for them.
func Query(n int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	answers := make(chan int)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case answers <- i:
			case <-ctx.Done():
			}
		}()
	}
	got := -1
	select {
	case a := <-answers:
		got = a
	case <-ctx.Done():
	}
	cancel()
	wg.Wait()
	if err := ctx.Err(); got < 0 && err != context.DeadlineExceeded || got >= n {
		panic(fmt.Sprintf("answer %d, context %v", got, err))
	}
}
