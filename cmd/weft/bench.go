package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"weft.dev/weft/bench"
)

const benchUsage = `usage: weft bench [-run regexp] [-engine list] [-limit n,d] [-json] [-quick]

weft bench explores the programs of the ConDPOR paper's evaluation (package
weft.dev/weft/bench) and prints a markdown table: for each program, size
and engine, weft's executions (complete and blocked), its wall time and peak
memory, and the paper's figures for JMC with the ratio of executions per
second. Each row runs in a process of its own, so that its peak memory
(maximum resident set) is its own; it runs with GOGC=400 and
GOMEMLIMIT=80MiB unless the environment sets them. The ratio divides the
executions by the CPU time of the exploration (user and system time of
that process while it explores), as the paper reports CPU time.

Rows are named Name/size, e.g. Counter1/5 or CoarseList/3,2 (the 50-50
workload: 3 inserters, 2 removers). The rows of the MPOR thesis (EXP-1.n,
EXP-3, Philosophers/n,rounds, DeadlockPhilosophers/n, MergeSort/n), and
BufferedChan/n, where condpor's classes merge Mazurkiewicz traces, run with
condpor, sdpor and mpor and show the thesis's figures in the note. The
rows of the QPOR paper's Table 1 and Fig. 1 (DISP/servers,requests,
MPAT/k, MPC/producers,workers, PI/n, POL/writers,rounds, SSBEXP/k) run
with condpor, sdpor, qpor and qpor:k=1,2,3 and show DPU's figures. The
rows of the CDPOR paper (PiSum/n, Reg/n, MS/n, DBP/transfers,audits: Go
shapes of its Pi, Reg, MS and DBP, whose commuting critical sections are
declared with sync.Mutex.LockCommuting; Fig1Synth, BB/producers,consumers,
capacity, Resolve/n and Quota/clients,tickets, whose sections are a
sync.Monitor's effects, with ICs that cdpor synthesizes) run with
condpor, sdpor, mpor, qpor and cdpor and show what the paper says of
them.

With more than one engine in -engine (e.g. -engine condpor,sdpor,mpor),
weft bench prints one comparison table per program and size instead: for
each engine its executions (complete and blocked), the redundant ones it
abandoned (sdpor's and k-partial qpor's sleep-set blocked executions,
mpor's dead ends, not counted in the executions), its time and peak memory; then the paper's or
the thesis's figures for the program.
`

// benchConfig is what the flags of weft bench say.
type benchConfig struct {
	rows    []*bench.Benchmark
	engines []bench.Engine // nil: each row's own
	limit   bench.Limit
	json    bool
	child   string // the hidden -child flag: run this one row and print it
}

// quickRows are the rows of -quick: a sample of every family at sizes
// that finish in a few seconds together, with their default engines.
var quickRows = regexp.MustCompile(`^(` +
	`Counter1/[2-5]|Counter2/[2-5]|SVStack1/[1-5]|SVStack2/[1-5]|SVQueue1/[1-7]|SVQueue2/[1-3]|SVQueue3/[1-5]|` +
	`LBQueue/[1-6]|LBQueue/[1-3],[1-3]|HWQueue/[1-6]|HWQueue/[1-3],[12]|UBQueue/[1-6]|UBQueue/[1-3],[1-3]|` +
	`MSQueue/[12]|MSQueue/[12],1|AGMStack/[1-4]|AGMStack/[12],[12]|TreiberStack/[1-4]|TreiberStack/[12],[12]|` +
	`(Coarse|Fine)List/[1-3]|(Coarse|Fine)List/[1-3],[12]|(Opt|Lazy)List/[1-3]|(Opt|Lazy)List/[12],1|` +
	`TSStack/.*|TSStackAtomic/.*|LPQueue/[1-4]|LPQueue/[12],[12]|EBStack/[1-3]|EBStack/[12],[12]|` +
	`FibBench1|FibBench2|GenMCFib/[2-4]|Sigma/16|Singleton|SingletonWUP|Lazy01|BigShotS|BigShotS2|BigShotP|QueueOK/20|Stack1/5|Stack2/5|` +
	`EXP-.*|Philosophers/[2-4],1|Philosophers/[23],2|DeadlockPhilosophers/[2-4]|MergeSort/[2-5]|BufferedChan/[2-4]|` +
	`DISP/5,2|MPAT/4|MPC/2,5|PI/5|POL/[24],[12]|SSBEXP/[248]|` +
	`PiSum/4|Reg/4|MS/4|DBP/3,1|Fig1|SameValue|Fig1Synth|BB/2,2,1|Resolve/4|Quota/4,2` +
	`)$`)

// parseBench parses the arguments of weft bench.
func parseBench(args []string, stderr io.Writer) (*benchConfig, error) {
	fs := flag.NewFlagSet("weft bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, benchUsage)
		fs.PrintDefaults()
	}
	run := fs.String("run", "", "run only the rows whose name matches `regexp`")
	engines := fs.String("engine", "", "comma-separated `engines` among condpor, exen (condpor with values enumerated over {0,1,2}), dfs, sdpor, mpor, qpor, qpor:k=1, qpor:k=2, qpor:k=3 and cdpor; default: condpor and those the paper has figures for (condpor, sdpor and mpor for the thesis's programs, condpor, sdpor and the qpors for the QPOR paper's, condpor, sdpor, mpor, qpor and cdpor for the CDPOR paper's); more than one prints a comparison table per program")
	limit := fs.String("limit", "600s", "stop each row after `n,d`: n executions and/or duration d (e.g. 1000000,120s); 0 for none")
	quick := fs.Bool("quick", false, "run a sample of small rows (under a minute)")
	workers := fs.Int("workers", 1, "explore each row with `n` workers (0: GOMAXPROCS); one by default, as JMC runs")
	c := &benchConfig{}
	fs.BoolVar(&c.json, "json", false, "print one JSON object per row instead of the table")
	fs.StringVar(&c.child, "child", "", "run one row in this process (used by weft bench itself)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("weft bench: unexpected arguments %q", fs.Args())
	}
	var err error
	if c.limit, err = parseLimit(*limit); err != nil {
		return nil, err
	}
	if *workers < 0 {
		return nil, errors.New("weft bench: -workers must not be negative")
	}
	c.limit.Workers = *workers
	if *engines != "" {
		for _, s := range strings.Split(*engines, ",") {
			e, err := bench.ParseEngine(strings.TrimSpace(s))
			if err != nil {
				return nil, fmt.Errorf("weft bench: -engine: %w", err)
			}
			c.engines = append(c.engines, e)
		}
	}
	if c.child != "" {
		b, ok := bench.Lookup(c.child)
		if !ok {
			return nil, fmt.Errorf("weft bench: no row %q", c.child)
		}
		if len(c.engines) != 1 {
			return nil, errors.New("weft bench: -child needs one -engine")
		}
		c.rows = []*bench.Benchmark{b}
		return c, nil
	}
	if c.rows, err = bench.Select(*run); err != nil {
		return nil, fmt.Errorf("weft bench: -run: %w", err)
	}
	if *quick {
		var rows []*bench.Benchmark
		for _, b := range c.rows {
			if quickRows.MatchString(b.ID()) {
				rows = append(rows, b)
			}
		}
		c.rows = rows
	}
	return c, nil
}

// parseLimit parses -limit: an execution count, a duration, or both
// separated by a comma.
func parseLimit(s string) (bench.Limit, error) {
	var l bench.Limit
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if n, err := strconv.Atoi(f); err == nil && n >= 0 {
			l.Executions = n
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil || d < 0 {
			return l, fmt.Errorf("weft bench: -limit %q: want executions, a duration or both, e.g. 1000000,120s", s)
		}
		l.Time = d
	}
	return l, nil
}

// limitString formats l for -limit.
func limitString(l bench.Limit) string { return fmt.Sprintf("%d,%s", l.Executions, l.Time) }

// rowRunner measures one row with one engine.
type rowRunner func(b *bench.Benchmark, e bench.Engine, l bench.Limit) (bench.Row, error)

// benchCmd runs weft bench with args and returns its exit status.
func benchCmd(args []string, stdout, stderr io.Writer) int {
	c, err := parseBench(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if c.child != "" {
		t0 := cpuSeconds()
		r, err := bench.Run(c.rows[0], c.engines[0], c.limit)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		r.CPUSeconds = cpuSeconds() - t0
		r.SetPaper(c.rows[0])
		if err := json.NewEncoder(stdout).Encode(r); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	return runBench(c, inChild, stdout, stderr)
}

// runBench runs the rows of c with run and prints them as they finish:
// one table, or with more than one engine in -engine one comparison table
// per row.
func runBench(c *benchConfig, run rowRunner, stdout, stderr io.Writer) int {
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	compare := !c.json && len(c.engines) > 1
	if !c.json {
		fmt.Fprintf(w, "weft bench on %s; limit per row %s; %s.\n\n", machine(), describeLimit(c.limit), describeWorkers(c.limit.Workers))
		if !compare {
			fmt.Fprintln(w, "| benchmark | size | engine | executions | complete | blocked | seconds | peak MB | JMC executions | JMC complete | JMC seconds | exec/s ratio | note |")
			fmt.Fprintln(w, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")
		}
		w.Flush()
	}
	status := 0
	enc := json.NewEncoder(w)
	for _, b := range c.rows {
		engines := c.engines
		if engines == nil {
			engines = b.Engines
		}
		if compare {
			title := b.ID()
			if b.Workload == bench.Mixed {
				title += " (50-50)"
			}
			fmt.Fprintf(w, "### %s\n\n", title)
			fmt.Fprintln(w, "| engine | executions | complete | blocked | redundant | seconds | peak MB | note |")
			fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|---|")
		}
		for _, e := range engines {
			r, err := run(b, e, c.limit)
			if err != nil {
				fmt.Fprintf(stderr, "weft bench: %s with %s: %v\n", b.ID(), e, err)
				status = 1
				continue
			}
			switch {
			case c.json:
				enc.Encode(r)
			case compare:
				fmt.Fprintln(w, comparisonRow(r))
			default:
				fmt.Fprintln(w, markdownRow(r))
			}
			w.Flush()
		}
		if compare {
			fmt.Fprintln(w)
			if lines := figures(b, engines); len(lines) > 0 {
				fmt.Fprintf(w, "%s\n\n", strings.Join(lines, "\n"))
			}
			w.Flush()
		}
	}
	return status
}

// inChild runs a row in a child process (weft bench -child), so that the
// peak memory measured is the row's own.
func inChild(b *bench.Benchmark, e bench.Engine, l bench.Limit) (bench.Row, error) {
	self, err := selfPath()
	if err != nil {
		return bench.Row{}, err
	}
	cmd := exec.Command(self, "bench", "-child", b.ID(), "-engine", string(e), "-limit", limitString(l), "-workers", strconv.Itoa(l.Workers))
	cmd.Env = childEnv(os.Environ())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return bench.Row{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(errOut.String()))
	}
	var r bench.Row
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return bench.Row{}, fmt.Errorf("reading the child's row: %v", err)
	}
	r.PeakMB = peakMB(cmd.ProcessState)
	return r, nil
}

// childEnv returns the environment of a row's process: env with the Go
// garbage collector set to trade memory for speed, GOGC=400 under a soft
// limit of 80 MiB (GOMEMLIMIT, under which it collects as often as it
// needs to), unless env sets them.
func childEnv(env []string) []string {
	for _, kv := range [][2]string{{"GOGC", "400"}, {"GOMEMLIMIT", "80MiB"}} {
		set := false
		for _, e := range env {
			set = set || strings.HasPrefix(e, kv[0]+"=")
		}
		if !set {
			env = append(env, kv[0]+"="+kv[1])
		}
	}
	return env
}

// selfPath returns the path of this command, to run it again: os.Args[0]
// as invoked (looked up in PATH if it is a bare name, which also works
// under testscript), or else the executable's path.
func selfPath() (string, error) {
	if self := os.Args[0]; strings.ContainsRune(self, filepath.Separator) {
		return self, nil
	} else if p, err := exec.LookPath(self); err == nil {
		return p, nil
	}
	return os.Executable()
}

// markdownRow formats r as a row of the table.
func markdownRow(r bench.Row) string {
	num := func(p *int) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(*p)
	}
	secs := func(p *float64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'g', 4, 64)
	}
	var notes []string
	if !r.Exhaustive && len(r.Bugs) == 0 {
		notes = append(notes, "stopped by the limit")
	}
	notes = append(notes, r.Bugs...)
	if r.Redundant > 0 {
		notes = append(notes, fmt.Sprintf("%d redundant", r.Redundant))
	}
	if r.Thesis != "" {
		notes = append(notes, "thesis: "+r.Thesis)
	}
	if r.DPU != "" {
		notes = append(notes, "DPU: "+r.DPU)
	}
	if r.SYCO != "" {
		notes = append(notes, "SYCO: "+r.SYCO)
	}
	if r.PaperTimeout {
		notes = append(notes, "JMC: timeout (210 min)")
	}
	ratio := ""
	if r.Ratio != nil {
		ratio = strconv.FormatFloat(*r.Ratio, 'f', 0, 64) + "×"
		if *r.Ratio < 10 {
			ratio = strconv.FormatFloat(*r.Ratio, 'g', 2, 64) + "×"
		}
	}
	size := r.Size
	if r.Workload == "50-50" {
		size += " (50-50)"
	}
	return fmt.Sprintf("| %s | %s | %s | %d | %d | %d | %.3g | %.0f | %s | %s | %s | %s | %s |",
		r.Benchmark, size, r.Engine, r.Executions, r.Complete, r.Blocked, r.Seconds, r.PeakMB,
		num(r.PaperExecutions), num(r.PaperComplete), secs(r.PaperSeconds), ratio, strings.Join(notes, "; "))
}

// comparisonRow formats r as a row of a comparison table: the bugs are
// given by kind only, as the thesis's programs may have several.
func comparisonRow(r bench.Row) string {
	var notes []string
	if !r.Exhaustive && len(r.Bugs) == 0 {
		notes = append(notes, "stopped by the limit")
	}
	var kinds []string
	count := map[string]int{}
	for _, bug := range r.Bugs {
		kind, _, _ := strings.Cut(bug, ":")
		if count[kind] == 0 {
			kinds = append(kinds, kind)
		}
		count[kind]++
	}
	for _, k := range kinds {
		if count[k] > 1 {
			k += fmt.Sprintf(" ×%d", count[k])
		}
		notes = append(notes, k)
	}
	return fmt.Sprintf("| %s | %d | %d | %d | %d | %.3g | %.0f | %s |",
		r.Engine, r.Executions, r.Complete, r.Blocked, r.Redundant, r.Seconds, r.PeakMB, strings.Join(notes, "; "))
}

// figures returns the lines under b's comparison table: the paper's
// figures for JMC with each of engines that has them, and the thesis's.
func figures(b *bench.Benchmark, engines []bench.Engine) []string {
	var lines []string
	for _, e := range engines {
		p, ok := b.Paper[e]
		if !ok {
			continue
		}
		if p.Timeout {
			lines = append(lines, fmt.Sprintf("JMC (%s, %s): timeout (210 min).", e, p.Table))
			continue
		}
		var f []string
		for _, x := range []struct {
			n    int
			what string
		}{{p.Executions, "executions"}, {p.Complete, "complete"}, {p.Blocked, "blocked"}} {
			if x.n >= 0 {
				f = append(f, fmt.Sprintf("%d %s", x.n, x.what))
			}
		}
		if p.Seconds >= 0 {
			f = append(f, strconv.FormatFloat(p.Seconds, 'g', 4, 64)+" s")
		}
		lines = append(lines, fmt.Sprintf("JMC (%s, %s): %s.", e, p.Table, strings.Join(f, ", ")))
	}
	if b.Thesis != "" {
		lines = append(lines, "Thesis: "+b.Thesis+".")
	}
	if b.DPU != "" {
		lines = append(lines, "QPOR paper, Table 1: "+b.DPU+".")
	}
	if b.SYCO != "" {
		lines = append(lines, "CDPOR paper: "+b.SYCO+".")
	}
	return lines
}

// describeLimit says what l bounds.
func describeLimit(l bench.Limit) string {
	var s []string
	if l.Executions > 0 {
		s = append(s, fmt.Sprintf("%d executions", l.Executions))
	}
	if l.Time > 0 {
		s = append(s, l.Time.String())
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " or ")
}

// describeWorkers says how many workers explore each row.
func describeWorkers(n int) string {
	switch n {
	case 0:
		return "GOMAXPROCS workers"
	case 1:
		return "1 worker"
	}
	return fmt.Sprintf("%d workers", n)
}

// machine describes the machine: Go version, OS, CPU model and count, and
// how busy it is.
func machine() string {
	cpu := runtime.GOARCH
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	m := fmt.Sprintf("%s %s/%s, %s, %d CPUs", runtime.Version(), runtime.GOOS, runtime.GOARCH, cpu, runtime.NumCPU())
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(data)); len(f) >= 3 {
			m += fmt.Sprintf(", load average %s %s %s at the start", f[0], f[1], f[2])
		}
	}
	return m
}
