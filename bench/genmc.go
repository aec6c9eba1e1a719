package bench

import (
	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// GenMCFib returns GenMC's own fib_bench (tests/correct/synthetic/fib_bench
// in GenMC's repository, variant fib_bench0), the program of weft's speed
// target against GenMC: unlike SV-COMP's (FibBench), no lock; two
// goroutines each add x and y into one of them n times, a third checks
// them against the largest value they can reach, fib(2n+2) (144 for n =
// 5), so that the program is correct and explored whole. Under
// sequential consistency (--sc) GenMC v0.10.3 explores 140, 1,698, 19,605
// and 218,243 executions for n = 2 to 5 (its NUM), and so does condpor.
// Main joins the goroutines, where GenMC's main returns
// without waiting for them; the count is the same.
func GenMCFib(n int) func() {
	bound := int32(fib(2*n + 2))
	return func() {
		var x, y atomic.Int32
		x.Store(1)
		y.Store(1)
		add := func(dst *atomic.Int32) func() {
			return func() {
				for range n {
					a, b := x.Load(), y.Load()
					dst.Store(a + b)
				}
			}
		}
		parallel(add(&x), add(&y), func() {
			weft.Assert(!(x.Load() > bound || y.Load() > bound), "fib bound exceeded")
		})
	}
}

// fib is the k-th Fibonacci number, fib(1) = fib(2) = 1.
func fib(k int) int {
	a, b := 1, 1
	for range k - 1 {
		a, b = b, a+b
	}
	return a
}

// genmc adds GenMCFib(n) for n = 2 to 5, with GenMC's counts.
func genmc(r *reg) {
	for n, count := range []int{2: 140, 3: 1698, 4: 19605, 5: 218243} {
		if count == 0 {
			continue
		}
		r.add(&Benchmark{
			Name: "GenMCFib", Size: []int{n}, Canonical: true,
			Want:    map[Engine]int{Condpor: count},
			program: func(bool) func() { return GenMCFib(n) },
		})
	}
}
