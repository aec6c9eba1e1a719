package bench

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// small reports whether b with engine e is cheap enough for go test: the
// symbolic lists cost a solver call or two per execution, so they are
// checked at three keys at most; everything else up to a few thousand
// executions.
func small(b *Benchmark, e Engine) bool {
	if p, ok := b.Paper[e]; ok && (p.Timeout || p.Executions > 6000) {
		return false
	}
	if want, ok := b.Want[e]; ok && want > 6000 {
		return false
	}
	n := 0
	for _, s := range b.Size {
		n += s
	}
	switch b.Name {
	case "CoarseList", "FineList", "OptList", "LazyList":
		return e == ExEn || n <= 3
	case "MSQueue", "TreiberStack", "EBStack", "HWQueue", "AGMStack", "TSStack", "TSStackAtomic":
		return n <= 4
	case "SVQueue3":
		return n <= 5
	case "Philosophers":
		// mpor's dead ends grow much faster than the traces: 1972 for
		// the 24 traces of (4, 1).
		return n <= 5
	case "DISP", "MPAT", "MPC", "PI", "POL", "SSBEXP":
		// sdpor and qpor with k = 1 abandon many times more executions
		// than the traces on some (POL(7,3): DPU's 72K).
		if want, ok := b.Want[e]; ok && want > 400 {
			return false
		}
		return true
	case "PiSum", "Reg", "MS", "DBP", "BB", "Resolve", "Quota":
		// mpor's dead ends grow much faster than the traces: 185540
		// for the 720 of DBP(4,2).
		if e == MPOR {
			return n <= 4
		}
		return b.Want[e] <= 800
	case "BufferedChan":
		// mpor: 11189 dead ends for n = 4, 5 s for n = 5.
		return n <= 4
	}
	return true
}

// TestCounts explores every small row with each of its engines and checks
// the complete executions against the counts weft must reproduce (the
// canonical ones of BENCHMARKS.md and the paper's where weft matches
// them), and that the programs have no bug but the unsafe SV-COMP ones
// and the thesis's programs that have the bugs they want.
func TestCounts(t *testing.T) {
	checked := 0
	for _, b := range Benchmarks() {
		for _, e := range b.Engines {
			if !small(b, e) {
				continue
			}
			t.Run(b.ID()+"/"+string(e), func(t *testing.T) {
				r, err := Run(b, e, Limit{Time: time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case b.AllBugs:
					var kinds []string
					for _, bug := range r.Bugs {
						kind, _, _ := strings.Cut(bug, ":")
						kinds = append(kinds, kind)
					}
					slices.Sort(kinds)
					if !slices.Equal(kinds, b.WantBugs) || !r.Exhaustive {
						t.Fatalf("bugs %q, exhaustive %v; want bugs of kinds %q, exhaustive", r.Bugs, r.Exhaustive, b.WantBugs)
					}
				case b.Unsafe:
					if len(r.Bugs) == 0 || !strings.HasPrefix(r.Bugs[0], "assertion failed") {
						t.Errorf("bugs %q, want an assertion failure", r.Bugs)
					}
					return
				case len(r.Bugs) > 0 || !r.Exhaustive:
					t.Fatalf("bugs %q, exhaustive %v; want no bug, exhaustive", r.Bugs, r.Exhaustive)
				}
				if want, ok := b.Want[e]; ok && r.Complete != want {
					t.Errorf("%d complete executions, want %d", r.Complete, want)
				}
			})
			checked++
		}
	}
	if checked < 150 {
		t.Errorf("checked %d rows: the selection of small rows lost most of them", checked)
	}
}

// TestCanonical checks that the counts BENCHMARKS.md calls canonical are
// in the registry with the closed forms, so that TestCounts checks them.
func TestCanonical(t *testing.T) {
	tests := []struct {
		id     string
		engine Engine
		want   int
	}{
		{"Counter1/3", Condpor, 8 * 6},    // 2^N·N!
		{"Counter1/3", ExEn, 27 * 6},      // 3^N·N!
		{"Counter2/3", Condpor, 24},       // (N+1)!
		{"CoarseList/3", Condpor, 36},     // (N!)²
		{"FineList/3", Condpor, 36},       // (N!)²
		{"SVStack1/3", Condpor, 20},       // C(2N,N)
		{"SVQueue2/3", Condpor, 20},       // C(2N,N)
		{"LBQueue/4", Condpor, 24},        // N!
		{"TSStack/4", Condpor, 1},         // symbolic timestamps
		{"TSStackAtomic/4", Condpor, 24},  // N!: the orders of the increments
		{"Counter1/6", Condpor, 64 * 720}, // and at the sizes JMC needed hours for
		{"CoarseList/6", Condpor, 720 * 720},
		{"GenMCFib/5", Condpor, 218243}, // GenMC's count under SC
		// The MPOR thesis's programs: the same traces for every engine.
		{"Philosophers/3,2", MPOR, 90},       // (nL)!/(L!)^n
		{"Philosophers/4,2", SDPOR, 2520},    // (nL)!/(L!)^n
		{"DeadlockPhilosophers/4", MPOR, 15}, // 2^n − 1
		{"MergeSort/5", Condpor, 120},        // n!
		{"EXP-1.10", MPOR, 34},               // OTHER-ENGINES.md §3.6
		// The QPOR paper's programs: DPU's maximal configurations.
		{"DISP/5,2", QPOR, 137},
		{"MPAT/4", QPOR2, 384}, // k!·2^k
		{"MPC/2,5", SDPOR, 60},
		{"PI/6", QPOR1, 720}, // n!
		{"POL/7,3", QPOR3, 2440},
		{"SSBEXP/8", QPOR, 16}, // 2k
	}
	for _, tc := range tests {
		b, ok := Lookup(tc.id)
		if !ok {
			t.Errorf("no row %s", tc.id)
			continue
		}
		if got := b.Want[tc.engine]; got != tc.want {
			t.Errorf("%s with %s: registry wants %d complete executions, want %d", tc.id, tc.engine, got, tc.want)
		}
	}
}

// TestPaperFigures checks the transcription of the paper's tables: the
// executions are the complete plus the blocked ones, and every row of a
// table has figures for the engines the table compares.
func TestPaperFigures(t *testing.T) {
	for _, b := range Benchmarks() {
		for e, p := range b.Paper {
			if p.Timeout || p.Executions < 0 || p.Complete < 0 || p.Blocked < 0 {
				continue
			}
			if p.Executions != p.Complete+p.Blocked {
				t.Errorf("%s %s (%s): %d executions ≠ %d complete + %d blocked", b.ID(), e, p.Table, p.Executions, p.Complete, p.Blocked)
			}
		}
		if b.Canonical {
			if p, ok := b.Paper[Condpor]; ok && p.Complete >= 0 && p.Complete != b.Want[Condpor] {
				t.Errorf("%s: canonical count %d, the paper has %d", b.ID(), b.Want[Condpor], p.Complete)
			}
		}
	}
}

func TestSelect(t *testing.T) {
	tests := []struct {
		pattern string
		want    []string
	}{
		{`^Counter1/[23]$`, []string{"Counter1/2", "Counter1/3"}},
		{`^CoarseList/3,`, []string{"CoarseList/3,2", "CoarseList/3,3"}},
		{`^Lazy01$`, []string{"Lazy01"}},
	}
	for _, tc := range tests {
		bs, err := Select(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range bs {
			got = append(got, b.ID())
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("Select(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
	if _, err := Select("("); err == nil {
		t.Error("Select accepted a bad regular expression")
	}
	seen := map[string]bool{}
	for _, b := range Benchmarks() {
		if seen[b.ID()] {
			t.Errorf("two rows named %s", b.ID())
		}
		seen[b.ID()] = true
	}
}

func TestSetPaper(t *testing.T) {
	b, _ := Lookup("Counter1/5") // JMC: 41760 executions in 217 s
	r := Row{Engine: Condpor, Executions: 3840, Seconds: 2, CPUSeconds: 0.5}
	r.SetPaper(b)
	if r.PaperComplete == nil || *r.PaperComplete != 3840 || r.PaperSeconds == nil || *r.PaperSeconds != 217 {
		t.Fatalf("paper figures %v, %v", r.PaperComplete, r.PaperSeconds)
	}
	want := (3840 / 0.5) / (41760 / 217.0) // with the CPU time
	if r.Ratio == nil || *r.Ratio < want*0.999 || *r.Ratio > want*1.001 {
		t.Errorf("ratio %v, want %v", r.Ratio, want)
	}
	r = Row{Engine: ExEn, Executions: 1}
	b, _ = Lookup("Counter1/6") // JMC's ExEn timed out
	r.SetPaper(b)
	if !r.PaperTimeout || r.PaperComplete != nil || r.Ratio != nil {
		t.Errorf("timed-out row: %+v", r)
	}
}
