// Package bench is the evaluation of the ConDPOR paper (Majumdar,
// Nagendra et al., CONCUR 2025, §6 and appendix Tables 1–9) ported to Go:
// every program the paper checks with its tool JMC, as a function of its
// size parameters, and the paper's figures for each row, so that weft's
// counts and speed can be set beside JMC's; and the programs of Vrooman's
// thesis on monotonic partial order reduction in OOX, run with condpor,
// sdpor and mpor beside the thesis's figures; and the programs of the QPOR
// paper's Table 1 (dpu.go), run with condpor, sdpor and qpor beside DPU's
// figures; and the programs of the CDPOR paper (syco.go), run with sdpor,
// cdpor and the others.
//
// The programs are in one file per family: synthetic.go (Counter1/2,
// SVStack1/2, SVQueue1/2/3), queues.go, stacks.go, lists.go, tsstack.go,
// lpqueue.go, svcomp.go (the SV-COMP programs of Table 9) and thesis.go
// (the MPOR thesis's). The data structures follow Herlihy and Shavit, The Art of Multiprocessor
// Programming (H&S below), and the papers BENCHMARKS.md cites; their shared
// fields are weft.Var under locks or weft/atomic types in the lock-free
// algorithms, their items and keys are sym.Int, and every program checks
// its behaviour with assertions.
//
// Benchmarks lists the rows (program, size, workload) with the paper's
// figures; Select picks some by a regular expression; Run explores one
// with an engine and returns a Row. The command weft bench prints them as
// a table.
package bench

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"weft.dev/weft"
)

// Workload says what the goroutines of a data-structure benchmark do.
type Workload int

// The workloads of the paper (§6.2).
const (
	// Fixed is the workload of the synthetic and SV-COMP programs: the
	// program itself says what its goroutines do.
	Fixed Workload = iota
	// Insert is "100-0": N goroutines each insert one symbolic item.
	Insert
	// Mixed is "50-50": ⌈N/2⌉ goroutines insert and ⌊N/2⌋ remove, given
	// as the two sizes (inserters, removers).
	Mixed
)

// String returns the paper's name of the workload ("" for Fixed).
func (w Workload) String() string {
	switch w {
	case Insert:
		return "100-0"
	case Mixed:
		return "50-50"
	}
	return ""
}

// Engine is a way to explore a benchmark, named as weft bench's -engine
// flag names it.
type Engine string

// The engines a benchmark can run with.
const (
	// Condpor is weft's optimal engine with symbolic values: the paper's
	// ConDPOR (or its plain DPOR where the program has no symbolic value).
	Condpor Engine = "condpor"
	// ExEn is the paper's baseline: condpor with every symbolic value
	// enumerated over {0, 1, 2}.
	ExEn Engine = "exen"
	// DFS explores every interleaving, without reduction.
	DFS Engine = "dfs"
	// SDPOR is source-DPOR with sleep sets: every Mazurkiewicz trace at
	// least once, the sleep-set blocked executions counted as redundant.
	SDPOR Engine = "sdpor"
	// MPOR is monotonic POR: every Mazurkiewicz trace once, the dead ends
	// counted as redundant.
	MPOR Engine = "mpor"
	// QPOR is quasi-optimal POR with optimal alternatives: every
	// Mazurkiewicz trace once, nothing redundant; QPOR1, QPOR2 and QPOR3
	// use k-partial alternatives, the sleep-set blocked executions
	// counted as redundant.
	QPOR  Engine = "qpor"
	QPOR1 Engine = "qpor:k=1"
	QPOR2 Engine = "qpor:k=2"
	QPOR3 Engine = "qpor:k=3"
	// CDPOR is constrained DPOR: sdpor exploring by conditional
	// independence (stores of one value, sections declared commuting),
	// for every trace an execution that reaches the same state.
	CDPOR Engine = "cdpor"
)

// Engines are the engines in the order weft bench reports them.
var Engines = []Engine{Condpor, ExEn, DFS, SDPOR, MPOR, QPOR, QPOR1, QPOR2, QPOR3, CDPOR}

// ParseEngine returns the engine named s.
func ParseEngine(s string) (Engine, error) {
	names := make([]string, len(Engines))
	for i, e := range Engines {
		if string(e) == s {
			return e, nil
		}
		names[i] = string(e)
	}
	return "", fmt.Errorf("unknown engine %q (available: %s)", s, strings.Join(names, ", "))
}

// options returns the weft options that select e.
func (e Engine) options() []weft.Option {
	if e == ExEn {
		return []weft.Option{weft.WithEngine("condpor"), weft.WithExplicitDomain(0, 2)}
	}
	return []weft.Option{weft.WithEngine(string(e))}
}

// Paper holds the paper's figures for one row and one engine. A figure
// the paper does not give is -1 (Table 7 gives only the executions and the
// time, Table 9 only the complete executions).
type Paper struct {
	Executions int
	Complete   int
	Blocked    int
	Seconds    float64 // CPU time
	// Timeout is true when JMC did not finish within its 210-minute limit;
	// the other figures are then -1.
	Timeout bool
	// Table is where the figures come from, e.g. "Table 5".
	Table string
}

// Benchmark is one row of the evaluation: a program at one size.
type Benchmark struct {
	Name     string   // the paper's name, e.g. "CoarseList"
	Workload Workload // what its goroutines do
	Size     []int    // N, or (inserters, removers) for the 50-50 workload
	// Canonical is true when the number of complete executions is a
	// property of the program that weft must reproduce (BENCHMARKS.md);
	// Want is that number, for the engines that have one.
	Canonical bool
	Want      map[Engine]int
	// Unsafe is true for the SV-COMP programs that have a bug, which the
	// exploration must find.
	Unsafe bool
	// AllBugs is true for the thesis's programs (thesis.go), explored with
	// weft.WithAllBugs so that their counts are the program's, bugs or
	// not; WantBugs are then the kinds of the distinct bugs they have
	// (BugKind.String, sorted), nil for a valid program.
	AllBugs  bool
	WantBugs []string
	// Thesis is what the MPOR thesis reports for the program (verdicts,
	// times, OOX's path counts under a depth bound), for the thesis's
	// programs; OOX's paths are not weft's executions (see thesis.go).
	Thesis string
	// DPU is what the QPOR paper's Table 1 reports for the program (DPU's
	// sleep-set blocked executions and seconds per k, Nidhugg's), for
	// the programs of dpu.go.
	DPU string
	// SYCO is what the CDPOR paper says of the program, for the programs
	// of syco.go.
	SYCO  string
	Paper map[Engine]Paper
	// Engines are the engines weft bench runs when -engine is not given:
	// condpor and the engines the paper has figures for.
	Engines []Engine
	// program builds the body; explicit is true for the ExEn engine,
	// whose clients differ where the paper's do (see lists.go).
	program func(explicit bool) func()
}

// ID names b for selection and for weft bench's child processes:
// Name/size, e.g. "CoarseList/6" or "CoarseList/3,2", or Name alone for a
// program without size parameters.
func (b *Benchmark) ID() string {
	if len(b.Size) == 0 {
		return b.Name
	}
	return b.Name + "/" + b.SizeString()
}

// SizeString returns the size parameters separated by commas, e.g. "3,2".
func (b *Benchmark) SizeString() string {
	s := make([]string, len(b.Size))
	for i, n := range b.Size {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// Body returns the program to explore with engine e.
func (b *Benchmark) Body(e Engine) func() { return b.program(e == ExEn) }

// Select returns the benchmarks whose ID matches the regular expression
// pattern ("" matches all), in the order of Benchmarks.
func Select(pattern string) ([]*Benchmark, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	var out []*Benchmark
	for _, b := range Benchmarks() {
		if re.MatchString(b.ID()) {
			out = append(out, b)
		}
	}
	return out, nil
}

// Lookup returns the benchmark with the given ID.
func Lookup(id string) (*Benchmark, bool) {
	for _, b := range Benchmarks() {
		if b.ID() == id {
			return b, true
		}
	}
	return nil, false
}

// Limit bounds one row's exploration, and says how many workers explore
// it. Zero fields mean no bound, and weft's default workers (GOMAXPROCS).
type Limit struct {
	Executions int
	Time       time.Duration
	Workers    int
}

// Row is the measurement of one benchmark with one engine, as weft bench
// prints it.
type Row struct {
	Benchmark  string `json:"benchmark"`
	Size       string `json:"size"`
	Workload   string `json:"workload,omitempty"`
	Engine     Engine `json:"engine"`
	Executions int    `json:"executions"`
	Complete   int    `json:"complete"`
	Blocked    int    `json:"blocked"`
	// Redundant counts the executions the engine abandoned as leading to
	// nothing new (weft.Result.Redundant): sdpor's and k-partial qpor's
	// sleep-set blocked executions, mpor's dead ends; not counted in
	// Executions.
	Redundant int     `json:"redundant"`
	Seconds   float64 `json:"seconds"` // wall time of the exploration
	// CPUSeconds is the user and system time that the exploration took
	// (measured by weft bench, which runs each row in a process of its
	// own), the measure the paper reports; 0 when not measured.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	// PeakMB is the peak resident set of that process, in MiB; 0 when not
	// measured.
	PeakMB     float64 `json:"peak_mb"`
	Exhaustive bool    `json:"exhaustive"`
	// Bugs are the kinds and messages of the bugs found (exploration stops
	// at the first): the SV-COMP programs of Table 9 that are unsafe have
	// one.
	Bugs            []string `json:"bugs,omitempty"`
	SolverCalls     int      `json:"solver_calls"`
	PaperExecutions *int     `json:"paper_executions"`
	PaperComplete   *int     `json:"paper_complete"`
	PaperSeconds    *float64 `json:"paper_seconds"`
	PaperTimeout    bool     `json:"paper_timeout,omitempty"`
	// Thesis is Benchmark.Thesis, the MPOR thesis's figures.
	Thesis string `json:"thesis,omitempty"`
	// DPU is Benchmark.DPU, the QPOR paper's figures.
	DPU string `json:"dpu,omitempty"`
	// SYCO is Benchmark.SYCO, what the CDPOR paper says.
	SYCO string `json:"syco,omitempty"`
	// Ratio is weft's executions per CPU second over JMC's, where the
	// paper gives both figures.
	Ratio *float64 `json:"ratio"`
}

// Run explores b with engine e within lim and returns the measurements
// that one process can take of itself: everything but CPUSeconds and
// PeakMB, which weft bench measures from outside. The error is for a
// configuration weft rejects.
func Run(b *Benchmark, e Engine, lim Limit) (Row, error) {
	opts := e.options()
	if lim.Executions > 0 {
		opts = append(opts, weft.WithMaxExecutions(lim.Executions))
	}
	if lim.Time > 0 {
		opts = append(opts, weft.WithTimeout(lim.Time))
	}
	if lim.Workers > 0 {
		opts = append(opts, weft.WithWorkers(lim.Workers))
	}
	if b.AllBugs {
		opts = append(opts, weft.WithAllBugs())
	}
	res, err := weft.Explore(b.Body(e), opts...)
	if err != nil {
		return Row{}, err
	}
	r := Row{
		Benchmark:   b.Name,
		Size:        b.SizeString(),
		Workload:    b.Workload.String(),
		Engine:      e,
		Executions:  res.Executions,
		Complete:    res.Complete,
		Blocked:     res.Blocked,
		Redundant:   res.Redundant,
		Seconds:     res.Elapsed.Seconds(),
		Exhaustive:  res.Exhaustive,
		SolverCalls: res.SolverCalls,
		Thesis:      b.Thesis,
		DPU:         b.DPU,
		SYCO:        b.SYCO,
	}
	for _, bug := range res.Bugs {
		r.Bugs = append(r.Bugs, bug.Kind.String()+": "+bug.Message)
	}
	r.SetPaper(b)
	return r, nil
}

// SetPaper fills r's paper figures from b and computes the ratio of
// executions per second, with r's CPU time when it is known and its wall
// time otherwise.
func (r *Row) SetPaper(b *Benchmark) {
	p, ok := b.Paper[r.Engine]
	if !ok {
		return
	}
	r.PaperTimeout = p.Timeout
	if p.Executions >= 0 && !p.Timeout {
		r.PaperExecutions = &p.Executions
	}
	if p.Complete >= 0 && !p.Timeout {
		r.PaperComplete = &p.Complete
	}
	if p.Seconds >= 0 && !p.Timeout {
		r.PaperSeconds = &p.Seconds
	}
	r.Ratio = nil
	secs := r.CPUSeconds
	if secs == 0 {
		secs = r.Seconds
	}
	if p.Executions > 0 && p.Seconds > 0 && secs > 0 && !p.Timeout {
		q := (float64(r.Executions) / secs) / (float64(p.Executions) / p.Seconds)
		r.Ratio = &q
	}
}
