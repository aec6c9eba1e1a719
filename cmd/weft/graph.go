package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

const graphUsage = `usage: weft graph -replay token -run regexp [-o file] [packages]

weft graph reruns the execution of a bug, named by the replay token of its
report, and writes its execution graph: a self-contained HTML page for a
file ending in .html, else Graphviz DOT. The token names an execution, not
a test: -run selects the test whose report gave it, as in the report's
rerun command. It is weft test -run regexp -replay token -graph file.
`

// graphCmd runs weft graph and returns its exit status: 0 when it wrote
// the graph.
func graphCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weft graph", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, graphUsage)
		fs.PrintDefaults()
	}
	token := fs.String("replay", "", "the replay `token` of the bug (required)")
	runPat := fs.String("run", "", "the test whose bug the token replays, as a go test -run `regexp` (required)")
	out := fs.String("o", "weft-graph.html", "write the graph to `file` (.html, else DOT)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch {
	case *token == "":
		fmt.Fprintf(stderr, "weft graph: -replay is required: the token of the bug's report\n%s", graphUsage)
		return 2
	case *runPat == "":
		fmt.Fprintf(stderr, "weft graph: -run is required: the test whose report gave the token\n%s", graphUsage)
		return 2
	}
	// The file is written anew: an old one must not pass for the graph.
	if err := os.Remove(*out); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "weft graph: %v\n", err)
		return 2
	}
	testArgs := append([]string{"-run", *runPat, "-replay", *token, "-graph", *out}, fs.Args()...)
	// The replayed execution has the bug, so go test fails: that is the
	// expected outcome, and weft graph succeeds if it wrote the graph.
	test(testArgs, stderr, stderr)
	if _, err := os.Stat(*out); err != nil {
		fmt.Fprintf(stderr, "weft graph: the replay found no bug with a trace; %s was not written\n", *out)
		return 1
	}
	return 0
}
