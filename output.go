package weft

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"weft.dev/weft/internal/report"
	"weft.dev/weft/internal/timerhook"
)

// What a check writes besides its result, set from the environment by the
// weft command (and by anyone running go test by hand):
//
//   - WEFT_JSON=FILE appends one JSON object per line to FILE for every
//     Check: the package, the test, the statistics and the bugs with their
//     traces (see internal/report.Record). A file rather than the test's
//     standard output because go test shows the output of a passing package
//     only with -v, and may interleave long lines of parallel tests.
//   - WEFT_GRAPH=FILE writes the execution graph of the first bug that the
//     process finds to FILE: a self-contained HTML page when FILE ends in
//     .html, else Graphviz DOT.
//
// Both names are taken as given, so a relative one is relative to the
// directory go test runs the package's tests in: the package's directory.
const (
	envJSON  = "WEFT_JSON"
	envGraph = "WEFT_GRAPH"
)

// envOwner holds the process id of the test binary that the variables of
// the weft command (WEFT_JSON, WEFT_GRAPH, WEFT_PROGRESS) are meant for. A
// process that a test starts inherits them (x/sync's singleflight tests
// run their own binary again, to see it crash), and its checks must not
// write into the command's records, graph and progress as the test's.
const envOwner = "WEFT_OWNER"

// inherited is set in a process that a test binary started: one whose
// WEFT_* variables were meant for another.
var inherited = func() bool {
	own := strconv.Itoa(os.Getpid())
	if v := os.Getenv(envOwner); v != "" && v != own {
		return true
	}
	os.Setenv(envOwner, own)
	return false
}()

// graphWritten is set once the process has written WEFT_GRAPH.
var graphWritten atomic.Bool

// writeGraph writes the graph of the first bug of res, unless the process
// has written one already.
func writeGraph(res Result) error {
	path := os.Getenv(envGraph)
	if path == "" || inherited {
		return nil
	}
	for _, b := range res.Bugs {
		if b.Trace.model == nil {
			continue
		}
		if !graphWritten.CompareAndSwap(false, true) {
			return nil
		}
		if err := os.WriteFile(path, report.Render(path, b.Trace.model), 0o644); err != nil {
			return fmt.Errorf("%s: %w", envGraph, err)
		}
		return nil
	}
	return nil
}

// recordCheck appends the JSON record of a check to WEFT_JSON, if set.
func recordCheck(pkg, test string, res Result, err error) error {
	path := os.Getenv(envJSON)
	if path == "" || inherited {
		return nil
	}
	r := report.Record{
		Package:        pkg,
		Test:           test,
		Engine:         res.Engine,
		Executions:     res.Executions,
		Complete:       res.Complete,
		Blocked:        res.Blocked,
		Redundant:      res.Redundant,
		ElapsedSeconds: res.Elapsed.Seconds(),
		SolverCalls:    res.SolverCalls,
		Exhaustive:     res.Exhaustive,
		Bugs:           []report.RecordBug{},
	}
	if res.Shards > 0 {
		r.Shard = fmt.Sprintf("%d/%d", res.Shard, res.Shards)
	}
	if err != nil {
		r.Error = err.Error()
	}
	for _, b := range res.Bugs {
		r.Bugs = append(r.Bugs, report.RecordBug{Kind: b.Kind.String(), Message: b.Message, Replay: b.Replay, Trace: b.Trace.model})
	}
	line, jerr := json.Marshal(r)
	if jerr != nil {
		return fmt.Errorf("%s: %w", envJSON, jerr)
	}
	f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if ferr != nil {
		return fmt.Errorf("%s: %w", envJSON, ferr)
	}
	// One write per line: the test binaries of several packages append to
	// the same file at once.
	_, werr := f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("%s: %w", envJSON, werr)
	}
	return nil
}

// checkReport is what Check reports for a bug: the bug and its trace, the
// statistics, and the two commands that rerun just its execution.
func checkReport(b *Bug, res Result, test, pkg string) string {
	var s strings.Builder
	s.WriteString("weft: ")
	s.WriteString(b.describe())
	s.WriteString(timerNote(b))
	execs := "executions"
	if res.Executions == 1 {
		execs = "execution"
	}
	redundant := ""
	if res.Redundant > 0 {
		redundant = fmt.Sprintf(", %d redundant", res.Redundant)
	}
	fmt.Fprintf(&s, "statistics: %d %s (%d complete, %d blocked%s), %v, engine %s\n",
		res.Executions, execs, res.Complete, res.Blocked, redundant, res.Elapsed.Round(time.Microsecond), res.Engine)
	if b.Replay != "" {
		run := shellQuote(runPattern(test))
		s.WriteString("rerun just this execution:\n")
		fmt.Fprintf(&s, "  weft test -run %s -replay %s %s\n", run, b.Replay, pkg)
		// go test alone would run a package weft test rewrote as it is
		// written.
		if os.Getenv("WEFT_REWRITTEN") == "" {
			fmt.Fprintf(&s, "  WEFT_REPLAY=%s go test -run %s %s\n", b.Replay, run, pkg)
		}
	}
	return s.String()
}

// firing is a step of the clock in a trace: "timer#2 fires at +1s".
var firing = regexp.MustCompile(`^((?:timer|ticker)#\d+) fires at (\S+)$`)

// timerNote explains an assertion failure that comes after a timer fired.
// weft fires a timer at any point after it is set, and runs the
// goroutines in any order meanwhile, so a test that relies on timing
// fails where a slow or loaded machine would make it fail, which may be
// no bug of the code under test: a hang detector (case
// <-time.After(time.Second): t.Fatal, in x/sync's and oklog/run's tests)
// whose timer wins; a time.Sleep meant to let other goroutines get work
// done, or to order them (conc's WithFirstError tests, golang-lru's
// expirable cache); a ticker that the test needs to tick more often than
// the ticks weft explores. It returns "" for other bugs.
func timerNote(b *Bug) string {
	if b.Kind != AssertionFailed {
		return ""
	}
	steps := b.Trace.Steps
	setAt := func(name string) (string, bool) {
		for _, s := range steps {
			if what, _, ok := strings.Cut(s.Op, name+" set to fire at "); ok && s.Pos != "" {
				return ", set at " + s.Pos, strings.HasPrefix(what, "Sleep")
			}
		}
		return "", false
	}
	var note strings.Builder
	ticks := map[string]int{}
	first := true
	for _, st := range steps {
		m := firing.FindStringSubmatch(st.Op)
		if m == nil {
			continue
		}
		name, at := m[1], m[2]
		set, sleep := setAt(name)
		switch {
		case strings.HasPrefix(name, "ticker#"):
			if ticks[name]++; ticks[name] == timerhook.MaxTicks {
				fmt.Fprintf(&note, "note: %s%s, fired its first %d ticks before the failure, which are all that weft explores: "+
					"the goroutines that wait for it get no more. A test that needs more ticks in the time it waits fails so.\n", name, set, timerhook.MaxTicks)
			}
			continue
		case !first:
			continue
		case sleep:
			fmt.Fprintf(&note, "note: %s, a time.Sleep%s, ended at %s before the failure: weft runs the other goroutines in any "+
				"order with a sleep, and may run none of them, as a slow or loaded machine may. If the test sleeps to let other "+
				"goroutines get work done, or to order them, this is the failure of a slow run, not necessarily a bug of the code under test.\n",
				name, set, at)
		default:
			fmt.Fprintf(&note, "note: %s%s, fired at %s before the failure: weft fires a timer at any point after it is set, "+
				"as a slow or loaded machine may. If the test uses it to give up on a hang, this is the failure of a slow run, "+
				"not necessarily a bug of the code under test.\n", name, set, at)
		}
		first = false
	}
	return note.String()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// testPackage returns the import path of the package whose tests run, for
// commands that rerun them: the build information of a test binary names
// it (as "path.test" when the package has external tests), while the
// caller of Check (the fallback) may be a helper package or, in a package
// main, only say "main".
func testPackage(caller string) string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" && !strings.HasPrefix(bi.Path, "command-line-arguments") {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return caller
}
