// Package overhead measures what checking plain Go costs: the same
// programs written with weft's API (this package) and written in plain Go
// (package plain) as weft test rewrites them (package rewritten/plain,
// internal/rewrite's output for plain's files, kept up to date by a
// test of package plain). Both are explored with weft's default engine
// and compared in executions per second:
//
//	go test -run X -bench Overhead ./bench/overhead
//
// and a test checks that both explore as many executions and find no bug.
// Each program is the plain one line for line, with the same operations:
// weft.Go for go, *weft.Chan for chan, weft.Select for select, weft/sync,
// weft/atomic, weft/time and weft/context for the standard packages, and
// weft.Assert where the plain program panics. Where the plain program
// uses an atomic function on a plain variable (Atomics, Pool), this one
// uses weft/atomic's type, as a program written for weft would.
package overhead

import (
	"time"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/context"
	"weft.dev/weft/sync"
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
		weft.Go(func() {
			defer wg.Done()
			mu.Lock()
			count++
			mu.Unlock()
		})
	}
	wg.Wait()
	weft.Assert(count == n, "count %d, want %d", count, n)
}

// Atomics starts n goroutines that each add one k times to a variable
// with an atomic addition, waits for them with a WaitGroup and checks the
// sum.
func Atomics(n, k int) {
	var sum atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		weft.Go(func() {
			defer wg.Done()
			for range k {
				sum.Add(1)
			}
		})
	}
	wg.Wait()
	s := sum.Load()
	weft.Assert(s == int64(n*k), "sum %d, want %d", s, n*k)
}

// Pipeline has two producers send 1..n each on an unbuffered channel,
// closed by a goroutine once both are done; a stage squares what it
// receives onto a buffered channel, which it closes when its input is
// drained; the caller sums the squares.
func Pipeline(n int) {
	src := weft.MakeChan[int](0)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		weft.Go(func() {
			defer wg.Done()
			for i := 1; i <= n; i++ {
				src.Send(i)
			}
		})
	}
	weft.Go(func() {
		wg.Wait()
		src.Close()
	})
	squares := weft.MakeChan[int](1)
	weft.Go(func() { square(src, squares) })
	sum := 0
	for {
		v, ok := squares.Recv()
		if !ok {
			break
		}
		sum += v
	}
	want := n * (n + 1) * (2*n + 1) / 3
	weft.Assert(sum == want, "sum %d, want %d", sum, want)
}

// square sends the square of each value of in on out, and closes out.
func square(in, out *weft.Chan[int]) {
	for {
		v, ok := in.Recv()
		if !ok {
			break
		}
		out.Send(v * v)
	}
	out.Close()
}

// Pool has workers goroutines take jobs from a buffered channel, count
// them with an atomic addition and send their results on an unbuffered
// channel, which a goroutine closes once a WaitGroup says that the workers
// are done; the caller sums the results.
func Pool(workers, jobs int) {
	in := weft.MakeChan[int](jobs)
	out := weft.MakeChan[int](0)
	var done atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		weft.Go(func() {
			defer wg.Done()
			for {
				j, ok := in.Recv()
				if !ok {
					break
				}
				done.Add(1)
				out.Send(2 * j)
			}
		})
	}
	for j := 1; j <= jobs; j++ {
		in.Send(j)
	}
	in.Close()
	weft.Go(func() {
		wg.Wait()
		out.Close()
	})
	sum := 0
	for {
		r, ok := out.Recv()
		if !ok {
			break
		}
		sum += r
	}
	d := done.Load()
	weft.Assert(sum == jobs*(jobs+1) && d == int64(jobs), "sum %d after %d jobs, want %d after %d", sum, d, jobs*(jobs+1), jobs)
}

// Query asks n replicas for an answer with a timeout and takes the first:
// each replica selects between sending its answer and the end of the
// context, which the caller cancels once it has an answer or the timeout
// fired, and then waits for them.
func Query(n int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	answers := weft.MakeChan[int](0)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		weft.Go(func() {
			defer wg.Done()
			weft.Select(answers.SendCase(i), ctx.Done().RecvCase(nil, nil))
		})
	}
	got := -1
	var a int
	if weft.Select(answers.RecvCase(&a, nil), ctx.Done().RecvCase(nil, nil)) == 0 {
		got = a
	}
	cancel()
	wg.Wait()
	err := ctx.Err()
	weft.Assert((got >= 0 || err == context.DeadlineExceeded) && got < n, "answer %d, context %v", got, err)
}
