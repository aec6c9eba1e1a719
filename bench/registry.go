package bench

import (
	"fmt"
	"math"
	"sync"
)

// The rows of the evaluation and the paper's figures for them, transcribed
// from the appendix of the paper (/work/shared/papers/condpor-concur2025.md,
// Tables 2–9; Table 1 is a subset of Table 2). Each figure is
// (executions, complete, blocked, CPU seconds). Where our copy of a table
// is illegible the figure is -1 and a comment says so.

// fig is a figure of the paper.
func fig(table string, executions, complete, blocked int, seconds float64) Paper {
	return Paper{Executions: executions, Complete: complete, Blocked: blocked, Seconds: seconds, Table: table}
}

// timeout is a row JMC did not finish within its 210-minute limit.
func timeout(table string) Paper {
	return Paper{Executions: -1, Complete: -1, Blocked: -1, Seconds: -1, Timeout: true, Table: table}
}

var (
	registryOnce sync.Once
	registry     []*Benchmark
)

// Benchmarks returns every row of the evaluation, in the paper's order:
// synthetic programs, data-independent, data-dependent and
// nondeterminism-based structures, SV-COMP programs.
func Benchmarks() []*Benchmark {
	registryOnce.Do(func() { registry = buildRegistry() })
	return registry
}

// reg collects rows.
type reg []*Benchmark

// add adds a row; engines run by default are condpor and those the paper
// has figures for.
func (r *reg) add(b *Benchmark) {
	b.Engines = []Engine{Condpor}
	if _, ok := b.Paper[ExEn]; ok {
		b.Engines = append(b.Engines, ExEn)
	}
	*r = append(*r, b)
}

func factorial(n int) int {
	f := 1
	for i := 2; i <= n; i++ {
		f *= i
	}
	return f
}

func pow(b, e int) int { return int(math.Pow(float64(b), float64(e))) }

func binomial(n, k int) int { return factorial(n) / (factorial(k) * factorial(n-k)) }

// runs returns the number of Mazurkiewicz traces of p events that commute
// with each other and q that commute with each other, every one of the
// first dependent with every one of the second: the words of alternating
// runs, each run an ordered block of a partition of its events.
func runs(p, q int) int {
	n := 0
	for kp := 1; kp <= p; kp++ {
		for kq := max(1, kp-1); kq <= min(q, kp+1); kq++ {
			ways := onto(p, kp) * onto(q, kq)
			if kp == kq {
				ways *= 2 // either kind first
			}
			n += ways
		}
	}
	return n
}

// onto returns the number of maps of n elements onto k ordered blocks.
func onto(n, k int) int {
	s := 0 // inclusion-exclusion
	for j := 0; j <= k; j++ {
		t := binomial(k, j) * pow(k-j, n)
		if j%2 == 1 {
			t = -t
		}
		s += t
	}
	return s
}

// catalan returns the n-th Catalan number.
func catalan(n int) int { return binomial(2*n, n) / (n + 1) }

func buildRegistry() []*Benchmark {
	var r reg
	synthetic(&r)
	dataIndependent(&r)
	dataDependent(&r)
	nondeterministic(&r)
	svcomp(&r)
	genmc(&r)
	thesis(&r)
	dpu(&r)
	syco(&r)
	return r
}

// synthetic adds the rows of Table 2.
func synthetic(r *reg) {
	const t = "Table 2"
	type row struct {
		n          int
		exen, cond Paper
	}
	for _, x := range []row{
		{2, fig(t, 36, 18, 18, 0.2), fig(t, 16, 8, 8, 0.27)},
		{3, fig(t, 567, 162, 405, 1.8), fig(t, 168, 48, 120, 1.1)},
		{4, fig(t, 11988, 1944, 10044, 32), fig(t, 2368, 384, 1984, 8.8)},
		{5, fig(t, 317115, 29160, 287955, 1044), fig(t, 41760, 3840, 37920, 217)},
		{6, timeout(t), fig(t, 883584, 46080, 837504, 5540)},
	} {
		r.add(&Benchmark{
			Name: "Counter1", Size: []int{x.n}, Canonical: true,
			Want:    map[Engine]int{Condpor: pow(2, x.n) * factorial(x.n), ExEn: pow(3, x.n) * factorial(x.n)},
			Paper:   map[Engine]Paper{Condpor: x.cond, ExEn: x.exen},
			program: func(bool) func() { return Counter(x.n, false) },
		})
	}
	// Counter2(4)'s ExEn time is illegible in our copy of Table 2, and so
	// is Counter2(6)'s ConDPOR time, which Table 1 gives (403 s).
	for _, x := range []row{
		{2, fig(t, 24, 14, 10, 0.19), fig(t, 10, 6, 4, 0.17)},
		{3, fig(t, 261, 90, 171, 1.1), fig(t, 66, 24, 42, 0.63)},
		{4, fig(t, 3740, 744, 2996, -1), fig(t, 560, 120, 440, 2.3)},
		{5, fig(t, 66465, 7560, 58905, 215), fig(t, 5770, 720, 5050, 25)},
		{6, fig(t, 1411770, 91440, 1320330, 6368), fig("Table 1", 69852, 5040, 64812, 403)},
		{7, timeout(t), fig(t, 970886, 40320, 930566, 6929)},
	} {
		r.add(&Benchmark{
			Name: "Counter2", Size: []int{x.n}, Canonical: true,
			// ExEn: Σ over the 3^n inputs of (#even)!·(#odd)! = n!·(2^(n+1)−1).
			Want:    map[Engine]int{Condpor: factorial(x.n + 1), ExEn: factorial(x.n) * (pow(2, x.n+1) - 1)},
			Paper:   map[Engine]Paper{Condpor: x.cond, ExEn: x.exen},
			program: func(bool) func() { return Counter(x.n, true) },
		})
	}
	for _, x := range []row{
		{1, fig(t, 10, 2, 8, 0.1), fig(t, 4, 2, 2, 0.1)},
		{2, fig(t, 105, 24, 81, 0.5), fig(t, 16, 6, 10, 0.2)},
		{3, fig(t, 1566, 540, 1026, 7), fig(t, 58, 20, 38, 0.5)},
		{4, fig(t, 16848, 5670, 11178, 108), fig(t, 208, 70, 138, 1.5)},
		{5, fig(t, 183222, 61236, 121986, 1481), fig(t, 754, 252, 502, 5.5)},
		{6, timeout(t), fig(t, 2770, 924, 1846, 26)},
		{7, timeout(t), fig(t, 10294, 3432, 6862, 112)},
	} {
		r.add(&Benchmark{
			Name: "SVStack1", Size: []int{x.n}, Canonical: true,
			// ExEn: each of the n pushed values is one of the min(n,3)
			// values of {0,1,2} below n.
			Want:    map[Engine]int{Condpor: binomial(2*x.n, x.n), ExEn: binomial(2*x.n, x.n) * pow(min(x.n, 3), x.n)},
			Paper:   map[Engine]Paper{Condpor: x.cond, ExEn: x.exen},
			program: func(bool) func() { return SVStack(x.n, false, false) },
		})
	}
	for _, x := range []row{
		{1, fig(t, 10, 2, 8, 0.1), fig(t, 4, 2, 2, 0.2)},
		{2, fig(t, 99, 20, 79, 0.4), fig(t, 15, 5, 10, 0.2)},
		{3, fig(t, 1296, 378, 918, 5.7), fig(t, 48, 14, 34, 0.5)},
		{4, fig(t, 11988, 3402, 8586, 68), fig(t, 148, 42, 106, 1.5)},
		{5, fig(t, 112266, 32076, 80190, 932), fig(t, 462, 132, 330, 3.6)},
		{6, timeout(t), fig(t, 1481, 429, 1052, 14)},
		{7, timeout(t), fig(t, 4876, 1430, 3446, 54)},
		{8, timeout(t), fig(t, 16422, 4862, 11560, 213)},
	} {
		want := map[Engine]int{Condpor: catalan(x.n + 1)}
		if !x.exen.Timeout {
			want[ExEn] = x.exen.Complete
		}
		r.add(&Benchmark{
			Name: "SVStack2", Size: []int{x.n}, Want: want,
			Paper:   map[Engine]Paper{Condpor: x.cond, ExEn: x.exen},
			program: func(bool) func() { return SVStack(x.n, true, false) },
		})
	}
	for _, x := range []row{
		{1, fig(t, 18, 6, 12, 0.12), fig(t, 4, 2, 2, 0.12)},
		{2, fig(t, 54, 18, 36, 0.4), fig(t, 4, 2, 2, 0.13)},
		{3, fig(t, 162, 54, 108, 1.1), fig(t, 4, 2, 2, 0.14)},
		{4, fig(t, 486, 162, 324, 2.6), fig(t, 4, 2, 2, 0.17)},
		{5, fig(t, 1458, 486, 972, 8.9), fig(t, 4, 2, 2, 0.19)},
		{6, fig(t, 4374, 1458, 2916, 31), fig(t, 4, 2, 2, 0.19)},
		{7, fig(t, 13122, 4374, 8748, 112), fig(t, 4, 2, 2, 0.2)},
		{8, fig(t, 39366, 13122, 26244, 365), fig(t, 4, 2, 2, 0.2)},
		{9, fig(t, 118098, 39366, 78732, 1743), fig(t, 4, 2, 2, 0.2)},
		{10, timeout(t), fig(t, 4, 2, 2, 0.21)},
	} {
		r.add(&Benchmark{
			Name: "SVQueue1", Size: []int{x.n},
			Want:    map[Engine]int{Condpor: 2, ExEn: 2 * pow(3, x.n)},
			Paper:   map[Engine]Paper{Condpor: x.cond, ExEn: x.exen},
			program: func(bool) func() { return SVQueue(x.n, 1) },
		})
	}
	// SVQueue2(2)'s ConDPOR time is 0.15 s in Table 2 but 1 s in Table 1.
	for _, x := range []row{
		{1, fig(t, 18, 6, 12, 0.13), fig(t, 6, 2, 4, 0.13)},
		{2, fig(t, 1242, 54, 1188, 4.6), fig(t, 138, 6, 132, 0.15)},
		{3, fig(t, 92556, 540, 92016, 398), fig(t, 3428, 20, 3408, 13)},
		{4, timeout(t), fig(t, 86708, 70, 86638, 530)},
	} {
		r.add(&Benchmark{
			Name: "SVQueue2", Size: []int{x.n}, Canonical: true,
			Want:    map[Engine]int{Condpor: binomial(2*x.n, x.n), ExEn: binomial(2*x.n, x.n) * pow(3, x.n)},
			Paper:   map[Engine]Paper{Condpor: x.cond, ExEn: x.exen},
			program: func(bool) func() { return SVQueue(x.n, 2) },
		})
	}
	for _, x := range []row{
		{1, fig(t, 12, 6, 6, 0.1), fig(t, 10, 5, 5, 0.1)},
		{2, fig(t, 144, 54, 90, 0.6), fig(t, 18, 8, 10, 0.25)},
		{3, fig(t, 1377, 423, 954, 6), fig(t, 64, 24, 40, 0.5)},
		{4, fig(t, 10854, 2826, 8028, 59), fig(t, 190, 63, 127, 1.2)},
		{5, fig(t, 75735, 17703, 58032, 538), fig(t, 501, 154, 347, 3)},
		{6, fig(t, 490050, 107748, 382302, 4126), fig(t, 1226, 361, 865, 9)},
		{7, timeout(t), fig(t, 2865, 824, 2041, 27)},
		{8, timeout(t), fig(t, 6506, 1847, 4659, 70)},
		{9, timeout(t), fig(t, 14505, 4086, 10419, 175)},
	} {
		r.add(&Benchmark{
			Name: "SVQueue3", Size: []int{x.n},
			Paper:   map[Engine]Paper{Condpor: x.cond, ExEn: x.exen},
			program: func(bool) func() { return SVQueue(x.n, 3) },
		})
	}
}

// structure adds the rows of one data structure: sizes of one element are
// the 100-0 workload, of two the 50-50 one.
func structure(r *reg, name string, prog func(ins, rem int, explicit bool) func(), rows []structRow) {
	for _, x := range rows {
		w, rem := Insert, 0
		if len(x.size) == 2 {
			w, rem = Mixed, x.size[1]
		}
		paper := map[Engine]Paper{Condpor: x.cond}
		if x.exen.Table != "" {
			paper[ExEn] = x.exen
		}
		r.add(&Benchmark{
			Name: name, Workload: w, Size: x.size, Canonical: x.canonical, Want: x.want, Paper: paper,
			program: func(explicit bool) func() { return prog(x.size[0], rem, explicit) },
		})
	}
}

// structRow is a row of a data structure's table.
type structRow struct {
	size       []int
	cond, exen Paper
	want       map[Engine]int
	canonical  bool
}

// dataIndependent adds the rows of Tables 3 (100-0) and 4 (50-50), with
// the ConDPOR column (plain DPOR's counts are the same).
func dataIndependent(r *reg) {
	const t3, t4 = "Table 3", "Table 4"
	c := func(n int) map[Engine]int { return map[Engine]int{Condpor: n} }
	structure(r, "LBQueue", LBQueue, []structRow{
		{size: []int{1}, cond: fig(t3, 1, 1, 0, 0.09), want: c(1), canonical: true},
		{size: []int{2}, cond: fig(t3, 4, 2, 2, 0.1), want: c(2), canonical: true},
		{size: []int{3}, cond: fig(t3, 21, 6, 15, 0.2), want: c(6), canonical: true},
		{size: []int{4}, cond: fig(t3, 148, 24, 124, 0.6), want: c(24), canonical: true},
		{size: []int{5}, cond: fig(t3, 1305, 120, 1185, 4), want: c(120), canonical: true},
		{size: []int{6}, cond: fig(t3, 13806, 720, 13086, 69), want: c(720), canonical: true},
		{size: []int{7}, cond: fig(t3, 170401, 5040, 165361, 1051), want: c(5040), canonical: true},
		{size: []int{1, 1}, cond: fig(t4, 4, 2, 2, 0.16), want: c(2)},
		{size: []int{2, 1}, cond: fig(t4, 21, 6, 15, 0.23), want: c(6)},
		{size: []int{2, 2}, cond: fig(t4, 148, 24, 124, 0.66), want: c(24)},
		{size: []int{3, 2}, cond: fig(t4, 1305, 120, 1185, 4.5), want: c(120)},
		{size: []int{3, 3}, cond: fig(t4, 13806, 720, 13086, 51), want: c(720)},
		{size: []int{4, 3}, cond: fig(t4, 170401, 5040, 165361, 1024), want: c(5040)},
	})
	structure(r, "HWQueue", HWQueue, []structRow{
		{size: []int{1}, cond: fig(t3, 1, 1, 0, 0.1), want: c(1)},
		{size: []int{2}, cond: fig(t3, 4, 2, 2, 0.1), want: c(2)},
		{size: []int{3}, cond: fig(t3, 21, 6, 15, 0.2), want: c(6)},
		{size: []int{4}, cond: fig(t3, 148, 24, 124, 2), want: c(24)},
		{size: []int{5}, cond: fig(t3, 1305, 120, 1185, 4), want: c(120)},
		{size: []int{6}, cond: fig(t3, 13806, 720, 13086, 65), want: c(720)},
		{size: []int{7}, cond: fig(t3, 170401, 5040, 165361, 1054), want: c(5040)},
		{size: []int{1, 1}, cond: fig(t4, 7, 3, 4, 0.2)},
		{size: []int{2, 1}, cond: fig(t4, 57, 12, 45, 0.4)},
		{size: []int{2, 2}, cond: fig(t4, 1636, 168, 1468, 4.9)},
		{size: []int{3, 2}, cond: fig(t4, 40887, 1704, 39183, 204)},
	})
	structure(r, "UBQueue", UBQueue, []structRow{
		{size: []int{1}, cond: fig(t3, 1, 1, 0, 0.1), want: c(1)},
		{size: []int{2}, cond: fig(t3, 4, 2, 2, 0.1), want: c(2)},
		{size: []int{3}, cond: fig(t3, 21, 6, 15, 0.2), want: c(6)},
		{size: []int{4}, cond: fig(t3, 148, 24, 124, 0.6), want: c(24)},
		{size: []int{5}, cond: fig(t3, 1305, 120, 1185, 3), want: c(120)},
		{size: []int{6}, cond: fig(t3, 13806, 720, 13086, 61), want: c(720)},
		{size: []int{7}, cond: fig(t3, 170401, 5040, 165361, 1011), want: c(5040)},
		{size: []int{1, 1}, cond: fig(t4, 2, 2, 0, 0.11), want: c(2)},
		{size: []int{2, 1}, cond: fig(t4, 8, 4, 4, 0.14), want: c(4)},
		{size: []int{2, 2}, cond: fig(t4, 44, 16, 28, 0.29), want: c(16)},
		{size: []int{3, 2}, cond: fig(t4, 246, 48, 198, 0.99), want: c(48)},
		{size: []int{3, 3}, cond: fig(t4, 1962, 288, 1674, 6.9), want: c(288)},
		{size: []int{4, 3}, cond: fig(t4, 14664, 1152, 13512, 71), want: c(1152)},
		{size: []int{4, 4}, cond: fig(t4, 158336, 9216, 149120, 928), want: c(9216)},
	})
	structure(r, "MSQueue", MSQueue, []structRow{
		{size: []int{1}, cond: fig(t3, 1, 1, 0, 0.1), want: c(1)},
		{size: []int{2}, cond: fig(t3, 70, 24, 46, 0.4)},
		{size: []int{3}, cond: fig(t3, 49641, 9432, 40209, 292)},
		{size: []int{1, 1}, cond: fig(t4, 34, 12, 22, 0.1)},
		{size: []int{2, 1}, cond: fig(t4, 750, 136, 614, 2)},
		{size: []int{2, 2}, cond: fig(t4, 28968, 2688, 26280, 134)},
	})
	structure(r, "AGMStack", AGMStack, []structRow{
		{size: []int{1}, cond: fig(t3, 1, 1, 0, 0), want: c(1)},
		{size: []int{2}, cond: fig(t3, 10, 4, 6, 0.1)},
		{size: []int{3}, cond: fig(t3, 177, 36, 141, 0.6)},
		{size: []int{4}, cond: fig(t3, 5260, 576, 4684, 14)},
		{size: []int{5}, cond: fig(t3, 239625, 14400, 225225, 1001)},
		{size: []int{1, 1}, cond: fig(t4, 7, 3, 4, 0.17), want: c(3)},
		{size: []int{2, 1}, cond: fig(t4, 183, 38, 145, 0.69)},
		{size: []int{2, 2}, cond: fig(t4, 8848, 924, 7924, 24)},
		{size: []int{3, 2}, cond: fig(t4, 2264139, 99924, 2164215, 10744)},
	})
	structure(r, "TreiberStack", TreiberStack, []structRow{
		{size: []int{1}, cond: fig(t3, 1, 1, 0, 0.02), want: c(1)},
		{size: []int{2}, cond: fig(t3, 16, 6, 10, 0.09)},
		{size: []int{3}, cond: fig(t3, 474, 90, 384, 1.2)},
		{size: []int{4}, cond: fig(t3, 25148, 2520, 22628, 99)},
		{size: []int{1, 1}, cond: fig(t4, 7, 3, 4, 0.1)},
		{size: []int{2, 1}, cond: fig(t4, 173, 40, 133, 0.7)},
		{size: []int{2, 2}, cond: fig(t4, 3168, 452, 2716, 9)},
		{size: []int{3, 2}, cond: fig(t4, 293442, 22536, 270906, 1622)},
	})
}

// dataDependent adds the rows of Table 5 (ConDPOR, then ExEn).
func dataDependent(r *reg) {
	const t = "Table 5"
	ce := func(cond, exen int) map[Engine]int { return map[Engine]int{Condpor: cond, ExEn: exen} }
	for _, name := range []string{"CoarseList", "FineList"} {
		prog := CoarseList
		rows := []structRow{
			{size: []int{1}, cond: fig(t, 1, 1, 0, 0.11), exen: fig(t, 3, 3, 0, 0.04)},
			{size: []int{2}, cond: fig(t, 6, 4, 2, 0.14), exen: fig(t, 36, 18, 18, 0.25)},
			{size: []int{3}, cond: fig(t, 63, 36, 27, 0.47), exen: fig(t, 567, 162, 405, 2.1)},
			{size: []int{4}, cond: fig(t, 1108, 576, 532, 5), exen: fig(t, 11988, 1944, 10044, 38)},
			{size: []int{5}, cond: fig(t, 29485, 14400, 15085, 199), exen: fig(t, 317115, 29160, 287955, 1332)},
			{size: []int{6}, cond: fig(t, 1109046, 518400, 590646, 10511), exen: timeout(t)},
			{size: []int{1, 1}, cond: fig(t, 4, 2, 2, 0.17), exen: fig(t, 12, 6, 6, 0.08)},
			{size: []int{2, 1}, cond: fig(t, 32, 11, 21, 0.29), exen: fig(t, 189, 54, 135, 0.69)},
			{size: []int{2, 2}, cond: fig(t, 224, 42, 182, 1.2), exen: fig(t, 1332, 216, 1116, 41)},
			{size: []int{3, 2}, cond: fig(t, 4097, 582, 3515, 21), exen: fig(t, 35235, 3240, 31995, 137)},
			{size: []int{3, 3}, cond: fig(t, 43476, 3264, 40212, 267), exen: fig(t, 372762, 19440, 353322, 1841)},
			{size: []int{4, 3}, cond: fig(t, 1431994, 85254, 1346740, 12418), exen: timeout(t)},
		}
		if name == "FineList" {
			prog = FineList
			rows = []structRow{
				{size: []int{1}, cond: fig(t, 1, 1, 0, 0.11), exen: fig(t, 3, 3, 0, 0.05)},
				{size: []int{2}, cond: fig(t, 6, 4, 2, 0.17), exen: fig(t, 36, 18, 18, 0.21)},
				{size: []int{3}, cond: fig(t, 69, 36, 33, 0.56), exen: fig(t, 621, 162, 459, 2.83)},
				{size: []int{4}, cond: fig(t, 1468, 576, 892, 8), exen: fig(t, 16356, 1944, 14412, 70)},
				{size: []int{5}, cond: fig(t, 57385, 14400, 42985, 478), exen: fig(t, 611535, 29160, 582375, 3221)},
				{size: []int{1, 1}, cond: fig(t, 4, 2, 2, 0.15), exen: fig(t, 12, 6, 6, 0.09)},
				{size: []int{2, 1}, cond: fig(t, 35, 11, 24, 0.4), exen: fig(t, 198, 54, 144, 0.94)},
				{size: []int{2, 2}, cond: fig(t, 276, 42, 234, 1.6), exen: fig(t, 1488, 216, 1272, 5.6)},
				{size: []int{3, 2}, cond: fig(t, 7411, 582, 6829, 51), exen: fig(t, 50625, 3240, 47385, 222)},
				{size: []int{3, 3}, cond: fig(t, 106092, 3264, 102828, 941), exen: fig(t, 626142, 19440, 606702, 4378)},
			}
		}
		for i := range rows {
			x := &rows[i]
			if len(x.size) == 1 {
				n := x.size[0]
				x.canonical = true
				x.want = ce(factorial(n)*factorial(n), pow(3, n)*factorial(n))
			} else {
				// weft reproduces the paper's 50-50 counts.
				x.want = map[Engine]int{Condpor: x.cond.Complete}
				if !x.exen.Timeout {
					x.want[ExEn] = x.exen.Complete
				}
			}
		}
		structure(r, name, prog, rows)
	}
	optRows := func() []structRow {
		return []structRow{
			{size: []int{1}, cond: fig(t, 1, 1, 0, 0.11), exen: fig(t, 3, 3, 0, 0.06), want: ce(1, 3)},
			{size: []int{2}, cond: fig(t, 14, 8, 6, 0.25), exen: fig(t, 72, 36, 36, 0.41), want: ce(8, 36)},
			{size: []int{3}, cond: fig(t, 930, 402, 528, 5), exen: fig(t, 4893, 1554, 3339, 18), want: ce(402, 1554)},
			{size: []int{4}, cond: fig(t, 287900, 108768, 179132, 3091), exen: timeout(t)},
			{size: []int{1, 1}, cond: fig(t, 6, 3, 3, 0.17), exen: fig(t, 18, 9, 9, 0.13), want: ce(3, 9)},
			{size: []int{2, 1}, cond: fig(t, 251, 80, 171, 1.7), exen: fig(t, 1209, 393, 816, 5), want: map[Engine]int{ExEn: 393}},
			{size: []int{2, 2}, cond: fig(t, 14617, 3065, 11552, 135), exen: fig(t, 68382, 15594, 52788, 464), want: map[Engine]int{ExEn: 15594}},
		}
	}
	structure(r, "OptList", OptList, optRows())
	lazy := optRows()
	lazy[0].cond, lazy[0].exen = fig(t, 1, 1, 0, 0.11), fig(t, 3, 3, 0, 0.05)
	lazy[1].cond, lazy[1].exen = fig(t, 14, 8, 6, 0.21), fig(t, 72, 36, 36, 0.37)
	lazy[2].cond, lazy[2].exen = fig(t, 930, 402, 528, 4), fig(t, 4893, 1554, 3339, 19)
	lazy[3].cond, lazy[3].exen = fig(t, 284324, 179132, 105192, 2756), fig(t, 1029888, 213096, 816792, 6247)
	lazy[4].cond, lazy[4].exen = fig(t, 6, 3, 3, 0.16), fig(t, 18, 9, 9, 0.14)
	lazy[5].cond, lazy[5].exen = fig(t, 251, 80, 171, 1.6), fig(t, 1209, 393, 816, 5)
	lazy[6].cond, lazy[6].exen = fig(t, 14617, 3065, 11552, 118), fig(t, 68382, 15594, 52788, 491)
	structure(r, "LazyList", LazyList, lazy)
}

// nondeterministic adds the rows of Tables 7 and 8.
func nondeterministic(r *reg) {
	const t7, t8 = "Table 7", "Table 8"
	// Table 7 gives the executions and the time only; the 100-0 workload
	// is in its Figure 6, without numbers.
	execs := func(e int, s float64) Paper {
		return Paper{Executions: e, Complete: -1, Blocked: -1, Seconds: s, Table: t7}
	}
	for n := 1; n <= 6; n++ {
		r.add(&Benchmark{
			Name: "TSStack", Workload: Insert, Size: []int{n}, Canonical: true,
			Want:    map[Engine]int{Condpor: 1},
			program: func(explicit bool) func() { return TSStack(n, 0, false, explicit) },
		})
	}
	for _, x := range []struct {
		size       []int
		cond, atom Paper
	}{
		{[]int{1, 1}, execs(10, 0.21), execs(12, 0.10)},
		{[]int{2, 1}, execs(72, 0.71), execs(170, 0.88)},
		{[]int{2, 2}, execs(35078, 270), execs(68406, 474)},
	} {
		r.add(&Benchmark{
			Name: "TSStack", Workload: Mixed, Size: x.size,
			Paper:   map[Engine]Paper{Condpor: x.cond},
			program: func(explicit bool) func() { return TSStack(x.size[0], x.size[1], false, explicit) },
		})
		r.add(&Benchmark{
			Name: "TSStackAtomic", Workload: Mixed, Size: x.size,
			Paper:   map[Engine]Paper{Condpor: x.atom},
			program: func(explicit bool) func() { return TSStack(x.size[0], x.size[1], true, explicit) },
		})
	}
	for n := 1; n <= 6; n++ {
		r.add(&Benchmark{
			Name: "TSStackAtomic", Workload: Insert, Size: []int{n},
			Want:    map[Engine]int{Condpor: factorial(n)},
			program: func(explicit bool) func() { return TSStack(n, 0, true, explicit) },
		})
	}
	lp := []structRow{
		{size: []int{1}, exen: fig(t8, 1, 1, 0, 0.023), cond: fig(t8, 1, 1, 0, 0.1)},
		{size: []int{2}, exen: fig(t8, 10, 6, 4, 0.11), cond: fig(t8, 10, 6, 4, 0.19)},
		{size: []int{3}, exen: fig(t8, 141, 60, 81, 0.76), cond: fig(t8, 141, 60, 81, 0.74)},
		{size: []int{4}, exen: fig(t8, 2776, 840, 1936, 13.3), cond: fig(t8, 2776, 840, 1936, 11)},
		{size: []int{5}, exen: fig(t8, 70045, 15120, 54925, 375), cond: fig(t8, 70045, 15120, 54925, 397)},
		{size: []int{1, 1}, exen: fig(t8, 4, 2, 2, 0.05), cond: fig(t8, 4, 2, 2, 0.13)},
		{size: []int{2, 1}, exen: fig(t8, 62, 18, 44, 0.2), cond: fig(t8, 62, 18, 44, 0.46)},
		{size: []int{2, 2}, exen: fig(t8, 900, 116, 784, 2.8), cond: fig(t8, 900, 116, 784, 4)},
		{size: []int{3, 2}, exen: fig(t8, 51035, 3012, 48023, 228), cond: fig(t8, 51035, 3012, 48023, 303)},
	}
	for i := range lp {
		// weft reproduces the paper's counts, under ExEn while the
		// priorities [0, ins) are within its domain {0, 1, 2}.
		x := &lp[i]
		x.want = map[Engine]int{Condpor: x.cond.Complete}
		if x.size[0] <= 3 {
			x.want[ExEn] = x.exen.Complete
		}
	}
	structure(r, "LPQueue", LPQueue, lp)
	structure(r, "EBStack", EBStack, []structRow{
		{size: []int{1}, exen: fig(t8, 1, 1, 0, 0.03), cond: fig(t8, 1, 1, 0, 0.12)},
		{size: []int{2}, exen: fig(t8, 64, 24, 40, 0.35), cond: fig(t8, 20, 10, 10, 0.27)},
		{size: []int{3}, exen: fig(t8, 35154, 9882, 25272, 209), cond: fig(t8, 8646, 2958, 5688, 64)},
		{size: []int{1, 1}, exen: fig(t8, 7, 3, 4, 0.1), cond: fig(t8, 7, 3, 4, 0.19)},
		{size: []int{2, 1}, exen: fig(t8, 4696, 1424, 3272, 24), cond: fig(t8, 1950, 648, 1302, 10)},
		{size: []int{2, 2}, exen: timeout(t8), cond: fig(t8, 755542, 140944, 614598, 6705)},
	})
}

// svcomp adds the SV-COMP programs of Table 9, which gives the complete
// executions JMC explored (up to the bug, for the unsafe programs), and
// SV-COMP's stack-2, which the paper does not run.
func svcomp(r *reg) {
	const t = "Table 9"
	complete := func(c int) map[Engine]Paper {
		return map[Engine]Paper{Condpor: {Executions: -1, Complete: c, Blocked: -1, Seconds: -1, Table: t}}
	}
	for _, x := range []struct {
		name    string
		size    []int
		paper   int
		unsafe  bool
		program func() func()
	}{
		{"FibBench1", nil, 5922, false, func() func() { return FibBench(true) }},
		{"FibBench2", nil, 1368, true, func() func() { return FibBench(false) }},
		{"Sigma", []int{16}, 2, true, func() func() { return Sigma(16) }},
		{"Singleton", nil, 4, true, func() func() { return Singleton(false) }},
		{"SingletonWUP", nil, 24, false, func() func() { return Singleton(true) }},
		{"Lazy01", nil, 1, true, func() func() { return Lazy01() }},
		{"BigShotS", nil, 1, false, func() func() { return BigShot("s") }},
		{"BigShotS2", nil, 1, false, func() func() { return BigShot("s2") }},
		{"BigShotP", nil, 3, true, func() func() { return BigShot("p") }},
		{"QueueOK", []int{20}, 2, false, func() func() { return QueueOK(20) }},
		{"Stack1", []int{5}, 252, false, func() func() { return SVStack(5, false, false) }},
		{"Stack2", []int{5}, -1, true, func() func() { return SVStack(5, true, true) }},
	} {
		b := &Benchmark{Name: x.name, Size: x.size, Unsafe: x.unsafe, program: func(bool) func() { return x.program() }}
		if x.paper >= 0 {
			b.Paper = complete(x.paper)
		}
		r.add(b)
	}
}

// thesis adds the programs of the MPOR thesis (thesis.go), run with
// condpor, sdpor and mpor. Their counts are Mazurkiewicz traces, which are
// condpor's classes here (OTHER-ENGINES.md §3.6 and §4): the closed forms
// below, and for EXP-1 the counts measured with condpor. BufferedChan,
// where the two differ, is among them. Thesis holds the
// thesis's figures from Figure 6.1, §6.3 and appendices A.6 and A.7.
func thesis(r *reg) {
	add := func(b *Benchmark, traces int, bugs ...string) {
		b.AllBugs, b.WantBugs = true, bugs
		b.Want = map[Engine]int{Condpor: traces, SDPOR: traces, MPOR: traces}
		r.add(b)
		b.Engines = []Engine{Condpor, SDPOR, MPOR}
	}
	const (
		assertion = "assertion failed"
		deadlock  = "deadlock"
	)
	// Figure 6.1: verdict, depth bound, NOPOR and MPOR seconds (-1: no
	// result within a reasonable time).
	for _, x := range []struct {
		n, traces, k int
		verdict      string
		nopor, mpor  float64
		bugs         []string
	}{
		{1, 2, 40, "Invalid", 0.17, 0.18, []string{assertion}},
		{2, 2, 40, "Valid", 0.14, 0.16, nil},
		{3, 4, 40, "Invalid", 0.14, 0.15, []string{assertion}},
		{4, 2, 40, "Valid", 29.37, 0.18, nil},
		{5, 2, 40, "Invalid", 0.14, 0.14, []string{assertion}},
		{6, 2, 40, "Valid", 1.83, 0.15, nil},
		{7, 2, 40, "Deadlock", 0.01, 0.01, []string{deadlock, deadlock}},
		{8, 2, 40, "Valid", 1.06, 0.13, nil},
		{9, 2, 40, "Invalid", 174.20, 0.18, []string{assertion}},
		{10, 34, 120, "Invalid", -1, 0.20, []string{assertion, assertion}},
		{11, 6, 120, "Valid", -1, 1.17, nil},
		{12, 3, 40, "Invalid", 0.17, 0.15, []string{assertion}},
	} {
		nopor := "no result"
		if x.nopor >= 0 {
			nopor = fmt.Sprintf("%g s", x.nopor)
		}
		add(&Benchmark{
			Name:    fmt.Sprintf("EXP-1.%d", x.n),
			Thesis:  fmt.Sprintf("%s (k = %d): NOPOR %s, MPOR %g s", x.verdict, x.k, nopor, x.mpor),
			program: func(bool) func() { return Exp1(x.n) },
		}, x.traces, x.bugs...)
	}
	add(&Benchmark{
		Name:    "EXP-3",
		Thesis:  "NOPOR 128 path traces, MPOR 4 (2 of them not quasi-monotonic, §6.3)",
		program: func(bool) func() { return Exp3() },
	}, 2)
	// A.6 ran n = 4 philosophers looping forever under a depth bound.
	for _, s := range [][2]int{{2, 1}, {3, 1}, {4, 1}, {5, 1}, {2, 2}, {3, 2}, {4, 2}} {
		n, l := s[0], s[1]
		add(&Benchmark{
			Name: "Philosophers", Size: []int{n, l},
			Thesis:  "n = 4, unbounded rounds: paths NOPOR 2041193 (k = 100), SPOR 882280 (k = 115), MPOR 510520 (k = 130, 487 s)",
			program: func(bool) func() { return Philosophers(n, l, true) },
		}, factorial(n*l)/pow(factorial(l), n))
	}
	deadlocked := map[int]string{3: "MPOR finds the deadlock in 2.23 s", 4: "MPOR finds the deadlock in 51.50 s"}
	for n := 2; n <= 5; n++ {
		add(&Benchmark{
			Name: "DeadlockPhilosophers", Size: []int{n},
			Thesis:  deadlocked[n],
			program: func(bool) func() { return Philosophers(n, 1, false) },
		}, pow(2, n)-1, deadlock)
	}
	for n := 2; n <= 5; n++ {
		b := &Benchmark{Name: "BufferedChan", Size: []int{n}, program: func(bool) func() { return BufferedChan(n) }}
		add(b, factorial(n)*catalan(n))
		b.Want[Condpor] = factorial(n)
	}
	for n := 2; n <= 6; n++ {
		add(&Benchmark{
			Name: "MergeSort", Size: []int{n},
			Thesis:  "symbolic array: paths NOPOR 547295 (k = 32), SPOR 56226 and MPOR 1345 (k = 160)",
			program: func(bool) func() { return MergeSort(n) },
		}, factorial(n))
	}
}

// dpu adds the programs of the QPOR paper (dpu.go): the rows of its Table
// 1 and the ssbexp of its Fig. 1, run with condpor, sdpor and qpor
// (optimal and k = 1, 2, 3). Their counts are Mazurkiewicz traces, DPU's
// maximal configurations (OTHER-ENGINES.md §1.8: Table 1, DPU's
// regression tests and its scripts' comments; MPAT = k!·2^k, PI = n!,
// SSBEXP = 2k), which condpor's classes equal on these programs. DPU
// holds the paper's figures: sleep-set blocked executions (SSB) and
// seconds of DPU per k and of Nidhugg (SDPOR); "TO" is its 8-minute
// timeout, "K" thousands as the paper prints them.
func dpu(r *reg) {
	add := func(name string, size []int, traces int, fig string, program func() func()) {
		b := &Benchmark{Name: name, Size: size, DPU: fig, program: func(bool) func() { return program() }}
		b.Want = map[Engine]int{Condpor: traces, SDPOR: traces, QPOR: traces, QPOR1: traces, QPOR2: traces, QPOR3: traces}
		r.add(b)
		b.Engines = []Engine{Condpor, SDPOR, QPOR, QPOR1, QPOR2, QPOR3}
	}
	for _, x := range []struct {
		r, traces int
		fig       string
	}{
		{2, 137, "k=1 1K SSB 0.8 s, k=2 43 SSB 0.4 s, k=3 0 SSB 0.4 s, optimal 0.4 s; Nidhugg 2K SSB 1.2 s"},
		{3, 1482, "k=1 11K SSB 5.4 s, k=2 595 SSB 1.3 s, k=3 1 SSB 1.0 s, optimal 1.0 s; Nidhugg 13K SSB 10.8 s"},
		{4, 15282, "k=1 105K SSB 58.5 s, k=2 6K SSB 16.4 s, k=3 213 SSB 10.3 s, optimal 10.3 s; Nidhugg 115K SSB 109 s"},
		{5, 151032, "k=1 TO, k=2 53K SSB 476 s, k=3 2K SSB 280 s, optimal 257 s; Nidhugg TO"},
	} {
		add("DISP", []int{5, x.r}, x.traces, x.fig, func() func() { return Dispatcher(5, x.r) })
	}
	for _, x := range []struct {
		k   int
		fig string
	}{
		{4, "k=1 0 SSB 0.5 s, optimal 0.5 s; Nidhugg 0 SSB 0.6 s"},
		{5, "k=1 0 SSB 2.4 s, optimal 2.7 s; Nidhugg 0 SSB 1.8 s"},
		{6, "k=1 0 SSB 50.6 s, optimal 73.2 s; Nidhugg 0 SSB 21.5 s"},
		{7, "TO; Nidhugg 0 SSB 359 s"},
	} {
		add("MPAT", []int{x.k}, factorial(x.k)*pow(2, x.k), x.fig, func() func() { return Mpat(x.k) })
	}
	for _, x := range []struct {
		p, traces int
		fig       string
	}{
		{2, 60, "k=1 560 SSB 0.6 s, k=2 0 SSB 0.4 s, optimal 0.4 s; Nidhugg 3K SSB 2.0 s"},
		{3, 2958, "k=1 50K SSB 26.5 s, k=2 3K SSB 3.0 s, k=3 0 SSB 1.7 s, optimal 1.7 s; Nidhugg 90K SSB 70.7 s"},
		{4, 314064, "k=1 TO, k=2 TO, k=3 30K SSB 391 s, optimal 296 s; Nidhugg TO"},
	} {
		add("MPC", []int{x.p, 5}, x.traces, x.fig, func() func() { return MultiProdCon(x.p, 5) })
	}
	for _, x := range []struct {
		n   int
		fig string
	}{
		{5, "k=1 0 SSB 0.4 s, optimal 0.5 s; Nidhugg 0 SSB 19.6 s"},
		{6, "k=1 0 SSB 0.7 s, optimal 0.7 s; Nidhugg 0 SSB 123 s"},
		{7, "k=1 0 SSB 3.5 s, optimal 4.0 s; Nidhugg TO"},
		{8, "k=1 0 SSB 48.1 s, optimal 42.9 s; Nidhugg TO"},
	} {
		add("PI", []int{x.n}, factorial(x.n), x.fig, func() func() { return Pi(x.n) })
	}
	for _, x := range []struct {
		n, k, traces int
	}{{2, 1, 4}, {2, 2, 14}, {2, 3, 40}, {4, 1, 8}, {4, 2, 60}, {4, 3, 412}} {
		add("POL", []int{x.n, x.k}, x.traces, "not in Table 1; its regression tests: the same traces",
			func() func() { return Poke(x.n, x.k) })
	}
	for _, x := range []struct {
		n, traces int
		fig       string
	}{
		{7, 2440, "k=1 72K SSB 48.5 s, k=2 1K SSB 2.9 s, k=3 6 SSB 1.9 s, optimal 1.9 s; Nidhugg 90K SSB 74.1 s"},
		{8, 3700, "k=1 214K SSB 153 s, k=2 3K SSB 5.5 s, k=3 10 SSB 3.0 s, optimal 3.0 s; Nidhugg 274K SSB 251 s"},
		{9, 5332, "k=1 592K SSB 464 s, k=2 5K SSB 9.5 s, k=3 15 SSB 4.8 s, optimal 4.8 s; Nidhugg TO"},
		{10, 7384, "k=1 TO, k=2 9K SSB 17.2 s, k=3 21 SSB 6.8 s, optimal 7.1 s; Nidhugg TO"},
		{11, 9904, "k=1 TO, k=2 12K SSB 27.2 s, k=3 28 SSB 9.7 s, optimal 10.6 s; Nidhugg TO"},
		{12, 12940, "k=1 TO, k=2 20K SSB 46.3 s, k=3 36 SSB 13.5 s, optimal 16.4 s; Nidhugg TO"},
	} {
		add("POL", []int{x.n, 3}, x.traces, x.fig, func() func() { return Poke(x.n, 3) })
	}
	for _, k := range []int{2, 4, 8, 16} {
		add("SSBEXP", []int{k}, 2*k, "not in Table 1; its regression tests: 2k traces, 0 SSB from k=2 (k = 2..20)",
			func() func() { return SSBExp(k) })
	}
}

// syco adds the programs of the CDPOR paper (syco.go), run with condpor,
// sdpor, mpor, qpor and cdpor. The paper's Table 1 is an image that our
// copy lacks, so SYCO holds what its text says of the program. Their
// traces are the orders of the critical sections ((n+q)! for n sections
// and q others of one mutex, which every engine but cdpor explores); cdpor
// explores one order of the commuting sections, and for DBP the placements
// of the q audits among the n transfers: q!·(q+1)^n.
func syco(r *reg) {
	add := func(name string, size []int, traces, cdpor int, text string, program func() func()) {
		b := &Benchmark{Name: name, Size: size, SYCO: text, program: func(bool) func() { return program() }}
		b.Want = map[Engine]int{Condpor: traces, SDPOR: traces, MPOR: traces, QPOR: traces, CDPOR: cdpor}
		r.add(b)
		b.Engines = []Engine{Condpor, SDPOR, MPOR, QPOR, CDPOR}
	}
	const gains = "Table 1 not in our copy; the text: CDPOR's gains over SDPOR and CSDPOR grow exponentially with the input"
	for _, n := range []int{4, 6, 8} {
		add("PiSum", []int{n}, factorial(n), 1, gains+", up to 4 orders of magnitude over CSDPOR on Pi",
			func() func() { return PiSum(n) })
	}
	for _, n := range []int{4, 6, 8} {
		add("Reg", []int{n}, factorial(n), 1, gains, func() func() { return Registration(n) })
	}
	for _, n := range []int{4, 6, 8} {
		add("MS", []int{n}, factorial(n), 1, gains+"; on MS linear for small inputs, then SDPOR and CSDPOR time out (60 s) where CDPOR finishes",
			func() func() { return MergeSortRuns(n) })
	}
	add("Fig1", nil, 6, 4, "SDPOR 6 sequences (4 with an exact unconditional relation), CSDPOR 2 complete, CDPOR 1 complete and 1 partial (Examples 1, 2 and 5)", Fig1)
	add("SameValue", nil, 6, 4, "data-centric DPOR 3 observation classes, optimal DPOR with observers 5, CDPOR 2 (§6)", SameValue)
	for _, x := range [][2]int{{3, 1}, {4, 2}, {5, 2}, {6, 2}} {
		add("DBP", x[:], factorial(x[0]+x[1]), factorial(x[1])*pow(x[1]+1, x[0]), gains,
			func() func() { return Database(x[0], x[1]) })
	}
	// The sections declared as a monitor's effects, whose ICs cdpor
	// synthesizes.
	add("Fig1Synth", nil, 6, 4, "as Fig1; weft synthesizes I(p,r) = true and finds q's ICs not uniform", Fig1Synth)
	for _, x := range [][3]int{{2, 2, 1}, {3, 3, 2}, {4, 4, 2}} {
		add("BB", x[:], factorial(x[0]+x[1]), runs(x[0], x[1]),
			gains+"; BB is the only program with sleep sequences (peak 22 at BB(11))",
			func() func() { return BoundedBuffer(x[0], x[1], x[2]) })
	}
	for _, n := range []int{4, 6, 8} {
		add("Resolve", []int{n}, factorial(n), n, "not in the paper: a uniform IC on the state (resolved)",
			func() func() { return Resolve(n) })
	}
	for _, x := range [][2]int{{4, 2}, {6, 2}, {8, 3}} {
		add("Quota", x[:], factorial(x[0]), factorial(x[0])/factorial(x[0]-x[1]), "not in the paper: a uniform IC on the state (no ticket left)",
			func() func() { return Quota(x[0], x[1]) })
	}
}
