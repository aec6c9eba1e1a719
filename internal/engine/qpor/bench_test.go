package qpor_test

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/bench"
)

// BenchmarkExplore explores whole programs of the QPOR paper's Table 1 and
// BufferedChan, each a few hundred to a few thousand executions, with
// optimal and k-partial alternatives; execs/s counts the complete and
// the redundant executions.
func BenchmarkExplore(b *testing.B) {
	for _, p := range []struct {
		name string
		body func()
	}{
		{"BufferedChan(4)", bench.BufferedChan(4)},
		{"DISP(5,2)", bench.Dispatcher(5, 2)},
		{"MPAT(4)", bench.Mpat(4)},
		{"MPC(2,5)", bench.MultiProdCon(2, 5)},
		{"PI(5)", bench.Pi(5)},
		{"POL(4,3)", bench.Poke(4, 3)},
	} {
		for _, eng := range []string{"qpor", "qpor:k=1", "qpor:k=2"} {
			b.Run(p.name+"/"+eng, func(b *testing.B) {
				execs := 0
				for b.Loop() {
					res, err := weft.Explore(p.body, weft.WithEngine(eng))
					if err != nil {
						b.Fatal(err)
					}
					execs += res.Complete + res.Redundant
				}
				b.ReportMetric(float64(execs)/b.Elapsed().Seconds(), "execs/s")
			})
		}
	}
}
