package plain

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Atomics starts n goroutines that each add one k times to a plain
// variable with atomic.AddInt64, waits for them with a WaitGroup and
// checks the sum with atomic.LoadInt64.
func Atomics(n, k int) {
	var sum int64
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range k {
				atomic.AddInt64(&sum, 1)
			}
		}()
	}
	wg.Wait()
	if s := atomic.LoadInt64(&sum); s != int64(n*k) {
		panic(fmt.Sprintf("sum %d, want %d", s, n*k))
	}
}
