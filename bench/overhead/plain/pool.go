package plain

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Pool has workers goroutines take jobs from a buffered channel, count
// them with an atomic addition and send their results on an unbuffered
// channel, which a goroutine closes once a WaitGroup says that the workers
// are done; the caller sums the results.
func Pool(workers, jobs int) {
	in := make(chan int, jobs)
	out := make(chan int)
	var done int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range in {
				atomic.AddInt64(&done, 1)
				out <- 2 * j
			}
		}()
	}
	for j := 1; j <= jobs; j++ {
		in <- j
	}
	close(in)
	go func() {
		wg.Wait()
		close(out)
	}()
	sum := 0
	for r := range out {
		sum += r
	}
	if d := atomic.LoadInt64(&done); sum != jobs*(jobs+1) || d != int64(jobs) {
		panic(fmt.Sprintf("sum %d after %d jobs, want %d after %d", sum, d, jobs*(jobs+1), jobs))
	}
}
