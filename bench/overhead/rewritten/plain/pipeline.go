package plain

import (
	weft "weft.dev/weft"
	weftrw "weft.dev/weft/rewritten"
	weftsync "weft.dev/weft/sync"
)

import (
	"fmt"
	_ "sync"
)

// Pipeline has two producers send 1..n each on an unbuffered channel,
// closed by a goroutine once both are done; a stage squares what it
// receives onto a buffered channel, which it closes when its input is
// drained; the caller sums the squares.
func Pipeline(n int) {
	src := weft.MakeChan[int](0)
	var wg weftsync.WaitGroup
	for range 2 {
		wg.Add(1)
		weft.Go(func() {
			defer wg.Done()
			for i := 1; i <= weftrw.Read(&n); i++ {
				weftrw.Read(&src).Send(i)
			}
		})
	}
	weft.Go(func() {
		wg.Wait()
		weftrw.Read(&src).Close()
	})
	squares := weft.MakeChan[int](1)
	{
		weft_a0, weft_a1 := weftrw.Read(&src), squares
		weft.Go(func() { square(weft_a0, weft_a1) })
	}
	sum := 0
	for v := range weftrw.Range(squares) {
		sum += v
	}
	if want := weftrw.Read(&n) * (weftrw.Read(&n) + 1) * (2*weftrw.Read(&n) + 1) / 3; sum != want {
		panic(fmt.Sprintf("sum %d, want %d", sum, want))
	}
}

// square sends the square of each value of in on out, and closes out.
func square(in *weft.Chan[int], out *weft.Chan[int]) {
	for v := range weftrw.Range(in) {
		out.Send(v * v)
	}
	out.Close()
}
