package plain

import (
	"fmt"
	"sync"
)

// Counter starts n goroutines that each add one to a counter under a
// mutex, waits for them with a WaitGroup and checks the count.
func Counter(n int) {
	var (
		mu    sync.Mutex
		count int
		wg    sync.WaitGroup
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			count++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if count != n {
		panic(fmt.Sprintf("count %d, want %d", count, n))
	}
}
