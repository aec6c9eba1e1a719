package plain

import (
	"fmt"
	"sync"
)

// Pipeline has two producers send 1..n each on an unbuffered channel,
// closed by a goroutine once both are done; a stage squares what it
// receives onto a buffered channel, which it closes when its input is
// drained; the caller sums the squares.
func Pipeline(n int) {
	src := make(chan int)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= n; i++ {
				src <- i
			}
		}()
	}
	go func() {
		wg.Wait()
		close(src)
	}()
	squares := make(chan int, 1)
	go square(src, squares)
	sum := 0
	for v := range squares {
		sum += v
	}
	if want := n * (n + 1) * (2*n + 1) / 3; sum != want {
		panic(fmt.Sprintf("sum %d, want %d", sum, want))
	}
}

// square sends the square of each value of in on out, and closes out.
func square(in <-chan int, out chan<- int) {
	for v := range in {
		out <- v * v
	}
	close(out)
}
