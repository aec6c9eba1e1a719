package plain

import (
	weft "weft.dev/weft"
	weftatomic "weft.dev/weft/atomic"
	weftrw "weft.dev/weft/rewritten"
	weftsync "weft.dev/weft/sync"
)

import (
	"fmt"
	_ "sync"
	_ "sync/atomic"
)

// Pool has workers goroutines take jobs from a buffered channel, count
// them with an atomic addition and send their results on an unbuffered
// channel, which a goroutine closes once a WaitGroup says that the workers
// are done; the caller sums the results.
func Pool(workers, jobs int) {
	in := weft.MakeChan[int](jobs)
	out := weft.MakeChan[int](0)
	var done int64
	var wg weftsync.WaitGroup
	for range workers {
		wg.Add(1)
		weft.Go(func() {
			defer wg.Done()
			for j := range weftrw.Range(weftrw.Read(&in)) {
				weftatomic.AddInt64(&done, 1)
				weftrw.Read(&out).Send(2 * j)
			}
		})
	}
	for j := 1; j <= jobs; j++ {
		weftrw.Read(&in).Send(j)
	}
	weftrw.Read(&in).Close()
	weft.Go(func() {
		wg.Wait()
		weftrw.Read(&out).Close()
	})
	sum := 0
	for r := range weftrw.Range(weftrw.Read(&out)) {
		sum += r
	}
	if d := weftatomic.LoadInt64(&done); sum != jobs*(jobs+1) || d != int64(jobs) {
		panic(fmt.Sprintf("sum %d after %d jobs, want %d after %d", sum, d, jobs*(jobs+1), jobs))
	}
}
