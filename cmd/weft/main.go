// Command weft runs the tests of Go packages under the weft model checker.
//
// Usage:
//
//	weft test [flags] [packages] [-- go test flags]
//
// weft test runs go test on the packages (the current directory's by
// default) with the options of every weft.Check set by its flags, and
// exits with go test's status: non-zero when a check finds a bug. Each
// bug's report ends with the two commands that rerun just its execution:
//
//	weft test -run '^TestCounter$' -replay weft3-… example.com/counter
//	WEFT_REPLAY=weft3-… go test -run '^TestCounter$' example.com/counter
//
// The flags:
//
//	-engine name       the exploration engine: condpor (default), dfs, random, sdpor, mpor,
//	                   qpor, qpor:k=N, cdpor
//	-max-executions n  stop each check after n executions
//	-timeout d         stop each check after d, ending an execution still
//	                   running with a StepLimit bug (go test's own deadline
//	                   is set with -- -timeout)
//	-max-steps n       report a goroutine that performs more than n
//	                   operations in one execution (default 100,000): a
//	                   spin loop reaches its report sooner with a lower n
//	-seed n            seed of the random choices
//	-replay token      rerun exactly the execution of a bug (select its test
//	                   with -run)
//	-progress          show the progress of the explorations on the standard
//	                   error: a live line on a terminal, else plain lines;
//	                   without it, each check prints a line with its package,
//	                   test and totals when it ends, and one every 30 s while
//	                   it runs
//	-graph file        write the execution graph of the first bug to file: a
//	                   self-contained HTML page for .html, else Graphviz DOT
//	-json              print one JSON object per check on the standard output
//	                   (go test's own output goes to the standard error)
//	-workers n         explore each check with n workers (default GOMAXPROCS;
//	                   qpor and a replay use one)
//	-shard i/n         explore shard i of n of each check: the shards are
//	                   disjoint and together the whole exploration
//	-checkpoint file   keep a checkpoint of the exploration in file, written
//	                   as parts of it are done and when the check stops (its
//	                   -timeout, an interrupt): run again with the same file,
//	                   the check resumes from it (one check per file: select
//	                   it with -run, or name a directory, dir/, which keeps
//	                   a file per check; engines condpor, dfs, mpor and
//	                   random). An interrupt (Ctrl-C) stops the checks,
//	                   which write their checkpoints, and go test prints
//	                   their output; a second ends them at once
//	-pgo               compile the test binaries with weft's CPU profile
//	                   (profile-guided optimization, go test -pgo): the
//	                   explorations run a few percent faster, and the first
//	                   build with it compiles the standard library and
//	                   weft's packages again; go test's own -pgo, after --
//	                   or in GOFLAGS, wins
//	-rewrite patterns  rewrite the packages that the comma-separated
//	                   patterns match too (golang.org/x/sync/...): a
//	                   dependency outside the module is built from a copy
//	                   whose rewritten files replace its own, so that the
//	                   goroutines, channels and sync it uses are modelled
//	-run regexp, -v    passed to go test, as are the flags after --
//
// A package whose tests do not import weft is checked as it is written:
// weft test rewrites it and its tests into a temporary directory (go,
// channels, select, sync, sync/atomic, time, context and runtime.Gosched
// onto weft's counterparts; each TestXxx body, or each t.Run subtest of a
// test that has some, into a weft.Check) and runs go test with -overlay,
// and with an overlaid go.mod
// and go.sum that require weft when it is not in the module's graph. The
// user's files are only read. A construct it cannot rewrite yet is an
// error with its position. The packages of the module that a checked
// package imports are rewritten with it; those of other modules only when
// -rewrite names them: a goroutine that a package left as it is starts
// runs outside the checker, and is reported as a misuse when it calls the
// program's rewritten code.
//
// The flags set the environment variables that weft.Check reads
// (WEFT_ENGINE, WEFT_MAX_EXECUTIONS, WEFT_TIMEOUT, WEFT_MAX_STEPS, WEFT_SEED,
// WEFT_REPLAY, WEFT_PROGRESS, WEFT_WORKERS, WEFT_SHARD, WEFT_CHECKPOINT), so a test runs the same under weft test as under go test
// with those variables. For -json and -graph, the test binaries append a
// JSON record of every check to a temporary file named by WEFT_JSON; weft
// test prints the records and draws the graph of the first bug from its
// trace.
//
//	weft graph -replay token -run regexp [-o file] [packages]
//
// reruns the execution of a bug and writes its execution graph (HTML for a
// file ending in .html, else DOT; weft-graph.html by default): it is
// weft test -run regexp -replay token -graph file. weft bench prints the
// table of the paper's benchmarks (weft bench -h).
//
//	weft merge [files]
//
// reads the -json output of weft test -shard i/n for every shard of n
// (from the files, or the standard input) and prints one record per
// check: the counts summed, the bugs united, exhaustive only if every
// shard was explored and exhaustive, and the elapsed time of the slowest
// shard. It exits with 1 when a check has a bug or lacks a shard. See
// examples/shards for a Kubernetes Indexed Job and a GitHub Actions
// matrix that run the shards.
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage: weft test [flags] [packages] [-- go test flags]
       weft graph -replay token -run regexp [-o file] [packages]
       weft bench [flags]
       weft merge [files]

Run "go doc weft.dev/weft/cmd/weft" for the flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command with args and returns its exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "bench":
		return benchCmd(args[1:], stdout, stderr)
	case "test":
		return test(args[1:], stdout, stderr)
	case "graph":
		return graphCmd(args[1:], stdout, stderr)
	case "merge":
		return mergeCmd(args[1:], os.Stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "weft: unknown command %q\n%s", args[0], usage)
	return 2
}
