package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"weft.dev/weft/internal/parallel"
	"weft.dev/weft/internal/report"
	"weft.dev/weft/internal/token"
)

// testConfig is what the flags of weft test say.
type testConfig struct {
	env    []string // WEFT_* settings for the test binaries
	goArgs []string // for go test, after "test"
	pkgs   []string // the packages, as given
	// buildFlags are the flags for go test that choose the files and the
	// modules built (-tags, -mod): the rewrite must see the same.
	buildFlags []string
	rewrite    []string // -rewrite: the patterns of more packages to rewrite
	graph      string
	// checkpoint says that the checks keep a checkpoint (-checkpoint).
	checkpoint bool
	json       bool
	progress   bool
	// pgo says that the test binaries are compiled with weft's profile
	// (-pgo).
	pgo bool
}

// parseTest parses the arguments of weft test. Flags may come before and
// after the packages; everything after "--" goes to go test as is.
func parseTest(args []string, stderr io.Writer) (*testConfig, error) {
	var goFlags []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, goFlags = args[:i], args[i+1:]
	}
	fs := flag.NewFlagSet("weft test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	engine := fs.String("engine", "", "exploration engine: condpor, dfs, random, sdpor, mpor, qpor, qpor:k=N or cdpor")
	maxExec := fs.Int("max-executions", 0, "stop each check after `n` executions")
	timeout := fs.Duration("timeout", 0, "stop each check after `d`")
	maxSteps := fs.Int("max-steps", 0, "report a goroutine that performs more than `n` operations in an execution (default 100000)")
	seed := fs.Uint64("seed", 0, "seed of the random choices")
	replay := fs.String("replay", "", "rerun exactly the execution of a bug's `token`")
	workers := fs.Int("workers", 0, "explore each check with `n` workers (default GOMAXPROCS)")
	shard := fs.String("shard", "", "explore shard `i/n` of each check (0 <= i < n); weft merge sums the -json results of the shards")
	checkpoint := fs.String("checkpoint", "", "keep a checkpoint of the check's exploration in `file`, and resume from it (select one check with -run; dir/ keeps a file per check)")
	c := &testConfig{}
	fs.BoolVar(&c.progress, "progress", false, "show the progress of the explorations")
	fs.StringVar(&c.graph, "graph", "", "write the execution graph of the first bug to `file` (.html or .dot)")
	fs.BoolVar(&c.json, "json", false, "print one JSON object per check")
	fs.BoolVar(&c.pgo, "pgo", false, "compile the test binaries with weft's CPU profile (profile-guided optimization): explorations run a few percent faster, and the first build with it compiles the standard library and weft's packages again; a -pgo after -- (go test's) wins")
	runPat := fs.String("run", "", "run only the tests matching `regexp` (go test's -run)")
	rewriteDeps := fs.String("rewrite", "", "rewrite the packages matching the comma-separated `patterns` too (dependencies outside the module: golang.org/x/sync/...), so that their goroutines, channels and sync run under the checker")
	verbose := fs.Bool("v", false, "go test's -v")
	var pkgs []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pkgs, args = append(pkgs, args[0]), args[1:]
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["engine"] {
		c.env = append(c.env, "WEFT_ENGINE="+*engine)
	}
	if set["max-executions"] {
		if *maxExec < 0 {
			return nil, errors.New("-max-executions must not be negative")
		}
		c.env = append(c.env, "WEFT_MAX_EXECUTIONS="+strconv.Itoa(*maxExec))
	}
	if set["max-steps"] {
		if *maxSteps <= 0 {
			return nil, errors.New("-max-steps must be positive")
		}
		c.env = append(c.env, "WEFT_MAX_STEPS="+strconv.Itoa(*maxSteps))
	}
	if set["timeout"] {
		if *timeout < 0 {
			return nil, errors.New("-timeout must not be negative")
		}
		c.env = append(c.env, "WEFT_TIMEOUT="+timeout.String())
	}
	if set["workers"] {
		if *workers < 0 {
			return nil, errors.New("-workers must not be negative")
		}
		c.env = append(c.env, "WEFT_WORKERS="+strconv.Itoa(*workers))
	}
	if set["shard"] {
		if _, _, err := parallel.ParseShard(*shard); err != nil {
			return nil, fmt.Errorf("-shard %s: %w", *shard, err)
		}
		c.env = append(c.env, "WEFT_SHARD="+*shard)
	}
	if set["checkpoint"] {
		// The test binaries run in their packages' directories.
		abs, err := filepath.Abs(*checkpoint)
		if err != nil || *checkpoint == "" {
			return nil, fmt.Errorf("-checkpoint %q: not a file name", *checkpoint)
		}
		if strings.HasSuffix(*checkpoint, "/") || strings.HasSuffix(*checkpoint, string(filepath.Separator)) {
			abs += string(filepath.Separator) // a directory (see weft.WithCheckpoint)
		}
		c.env = append(c.env, "WEFT_CHECKPOINT="+abs)
		c.checkpoint = true
	}
	if set["seed"] {
		c.env = append(c.env, "WEFT_SEED="+strconv.FormatUint(*seed, 10))
	}
	if set["replay"] {
		// Catch a mangled token before building anything; whether it fits
		// the program only the test can tell.
		if _, _, err := token.Parse(*replay); err != nil {
			return nil, fmt.Errorf("-replay: %w", err)
		}
		c.env = append(c.env, "WEFT_REPLAY="+*replay)
	}
	if set["run"] {
		c.goArgs = append(c.goArgs, "-run="+*runPat)
	}
	if *verbose {
		c.goArgs = append(c.goArgs, "-v")
	}
	c.pkgs = pkgs
	c.buildFlags = buildFlags(goFlags)
	if *rewriteDeps != "" {
		c.rewrite = strings.Split(*rewriteDeps, ",")
	}
	c.goArgs = append(append(c.goArgs, goFlags...), pkgs...)
	return c, nil
}

// buildFlags returns the flags among the go test flags goFlags that choose
// the files and modules built, each as -name=value.
func buildFlags(goFlags []string) []string {
	var out []string
	for i := 0; i < len(goFlags); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(goFlags[i], "-"), "=")
		if !strings.HasPrefix(goFlags[i], "-") || name != "tags" && name != "mod" {
			continue
		}
		if !hasValue && i+1 < len(goFlags) {
			i++
			value = goFlags[i]
		}
		out = append(out, "-"+name+"="+value)
	}
	return out
}

// terminal names the terminal that the standard error is, or "".
func terminal() string {
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			tty.Close()
			return "/dev/tty"
		}
	}
	return ""
}

// quietEvery is how often, without -progress, a check that runs long
// shows how far it got: rarely enough not to bury go test's output, often
// enough that a long exploration is not taken for a hang.
const quietEvery = 30 * time.Second

// progressLine matches a progress line: the check's name, which may hold
// ": " itself (a subtest's), and "done: " on its last line.
var progressLine = regexp.MustCompile(`^weft: (?:(.*?): )??(done: )?\d+ executions `)

// progressFilter picks the progress lines of the test binaries that weft
// test shows: with -progress all of them; without, the last line of each
// check (which names it, with its totals) and, for a check that runs long,
// one line every quietEvery.
type progressFilter struct {
	all  bool
	seen map[string]time.Time // when a line of each check was last shown, or first seen
}

// keep says whether to show line, seen at now.
func (f *progressFilter) keep(line string, now time.Time) bool {
	if f.all {
		return true
	}
	m := progressLine.FindStringSubmatch(line)
	if m == nil || m[2] != "" {
		return true // not a progress line, or a check's last
	}
	check := m[1] // "" for an Explore's, which has no name
	last, ok := f.seen[check]
	if !ok {
		f.seen[check] = now
		return false
	}
	if now.Sub(last) < quietEvery {
		return false
	}
	f.seen[check] = now
	return true
}

// follow copies the lines that f keeps of what the test binaries append
// to the file name to w as it grows, until stop is closed; then it copies
// the rest and closes done.
func follow(name string, w io.Writer, f *progressFilter, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	var off int64
	var partial []byte // a line not yet ended
	copyNew := func() {
		file, err := os.Open(name)
		if err != nil {
			return
		}
		defer file.Close()
		data, _ := io.ReadAll(io.NewSectionReader(file, off, 1<<62))
		off += int64(len(data))
		partial = append(partial, data...)
		now := time.Now()
		for {
			i := bytes.IndexByte(partial, '\n')
			if i < 0 {
				break
			}
			if line := partial[:i+1]; f.keep(string(line[:i]), now) {
				w.Write(line)
			}
			partial = partial[i+1:]
		}
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			copyNew()
		case <-stop:
			copyNew()
			return
		}
	}
}

// relay handles the signals that reach weft test while the shielded go
// test cmd runs, until ended: the first interrupt makes the file that the
// checks look for, a second, or a signal that ends weft test, ends cmd
// and its group at once.
func relay(signals <-chan os.Signal, ended <-chan struct{}, file string, cmd *exec.Cmd) {
	for n := 0; ; n++ {
		var sig os.Signal
		select {
		case sig = <-signals:
		case <-ended:
			return
		}
		if n > 0 || sig != os.Interrupt {
			killGroup(cmd)
			return
		}
		os.WriteFile(file, nil, 0o666)
	}
}

// test runs weft test and returns its exit status.
func test(args []string, stdout, stderr io.Writer) int {
	c, err := parseTest(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "weft test: %v\n", err)
		return 2
	}
	// weft's package, which this command imports, marks the process as
	// the owner of the WEFT_* variables (see weft.envOwner): the test
	// binaries are.
	env := slices.DeleteFunc(os.Environ(), func(v string) bool { return strings.HasPrefix(v, "WEFT_OWNER=") })
	env = append(env, c.env...)
	dir, err := os.MkdirTemp("", "weft-test-")
	if err != nil {
		fmt.Fprintf(stderr, "weft test: %v\n", err)
		return 2
	}
	defer os.RemoveAll(dir)
	var records string
	stopFollowing := func() {}
	if c.json || c.graph != "" {
		records = filepath.Join(dir, "checks.jsonl")
		env = append(env, "WEFT_JSON="+records)
	}
	// go test gives its test binaries a pipe, and shows what they write
	// only when a package ends, if it fails or with -v: they write their
	// progress to the terminal (with -progress), or to a file that is
	// copied here as it grows. Without -progress, each check still says
	// when it is done, and every quietEvery while it runs, so that a long
	// exploration is not a silent one.
	target := ""
	if c.progress {
		target = terminal()
	}
	if target == "" {
		target = filepath.Join(dir, "progress")
		stop, done := make(chan struct{}), make(chan struct{})
		go follow(target, stderr, &progressFilter{all: c.progress, seen: map[string]time.Time{}}, stop, done)
		stopFollowing = func() { close(stop); <-done }
	}
	env = append(env, "WEFT_PROGRESS="+target)
	interrupt := filepath.Join(dir, "interrupt")
	if c.checkpoint {
		env = append(env, "WEFT_INTERRUPT="+interrupt)
	}
	// With -pgo, the test binaries are compiled with weft's profile, as
	// this command is, unless the user chose one (go test's -pgo). Not
	// the packages that the rewrite loads: go list -export compiles them
	// without a profile anyway, and with -pgo under keys of its own, which
	// would only add a third build to the build cache.
	pgo := ""
	if c.pgo {
		if pgo, err = pgoFlag(dir, env, c.goArgs); err != nil {
			fmt.Fprintf(stderr, "weft test: %v\n", err)
			return 2
		}
	}
	// Packages whose tests do not use weft are checked as they are
	// written: rewritten into dir, built through an overlay.
	rewritten := filepath.Join(dir, "rewritten")
	if err := os.Mkdir(rewritten, 0o755); err != nil {
		fmt.Fprintf(stderr, "weft test: %v\n", err)
		return 2
	}
	ov, ovFlags, err := overlay(rewritten, env, c.buildFlags, c.pkgs, c.rewrite)
	if err != nil {
		fmt.Fprintf(stderr, "weft test: %v\n", err)
		return 2
	}
	if ov != "" {
		env = append(env, "WEFT_REWRITTEN=1")
	}
	cmd := exec.Command("go", goTestArgs(c, pgo, ov, ovFlags)...)
	cmd.Env = env
	cmd.Stdin = os.Stdin
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if c.json {
		// The standard output carries only the records.
		cmd.Stdout = stderr
	}
	status := 0
	var interrupts chan os.Signal
	if c.checkpoint {
		// go test stops at an interrupt without printing the output of
		// the packages it runs: the checks' "interrupted after N
		// executions" with their checkpoints. It runs in a group of its
		// own, and the first interrupt makes a file instead, which the
		// checks look for (weft.openCheckpoint): they write their
		// checkpoints and stop, and go test ends as usual. The second
		// ends it at once. In a group of its own, it would stop at a read
		// of the terminal.
		shield(cmd)
		cmd.Stdin = nil
		interrupts = make(chan os.Signal, 2)
		signal.Notify(interrupts, append([]os.Signal{os.Interrupt}, endings...)...)
		defer signal.Stop(interrupts)
	}
	if err = cmd.Start(); err == nil {
		ended := make(chan struct{})
		if interrupts != nil {
			go relay(interrupts, ended, interrupt, cmd)
		}
		err = cmd.Wait()
		close(ended)
	}
	stopFollowing()
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			fmt.Fprintf(stderr, "weft test: %v\n", err)
			return 2
		}
		status = exit.ExitCode()
	}
	if records == "" {
		return status
	}
	recs, err := readRecords(records)
	if err != nil {
		fmt.Fprintf(stderr, "weft test: %v\n", err)
		return max(status, 1)
	}
	bugs := 0
	for _, r := range recs {
		bugs += len(r.rec.Bugs)
		if c.json {
			stdout.Write(r.line)
		}
	}
	if bugs > 0 {
		status = max(status, 1)
	}
	if c.graph != "" {
		if err := writeGraph(c.graph, recs, stderr); err != nil {
			fmt.Fprintf(stderr, "weft test: -graph: %v\n", err)
			return max(status, 1)
		}
	}
	return status
}

// goTestArgs returns the arguments of the go test command for c: with the
// profile flag pgo unless it is "", and the overlay ov of the rewritten
// files and its flags ovFlags unless ov is "".
func goTestArgs(c *testConfig, pgo, ov string, ovFlags []string) []string {
	args := []string{"test"}
	if pgo != "" {
		args = append(args, pgo)
	}
	if ov == "" {
		return append(args, c.goArgs...)
	}
	// The overlay's flags come last: they win over the user's.
	args = append(args, "-overlay="+ov)
	args = append(args, c.goArgs[:len(c.goArgs)-len(c.pkgs)]...)
	return append(append(args, ovFlags...), c.pkgs...)
}

// record is a line of WEFT_JSON, decoded.
type record struct {
	line []byte // with its newline
	rec  report.Record
}

// readRecords reads the records the test binaries wrote, in the order they
// wrote them. No file means that no check ran.
func readRecords(name string) ([]record, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []record
	for line := range bytes.Lines(data) {
		r := record{line: line}
		if err := json.Unmarshal(line, &r.rec); err != nil {
			return nil, fmt.Errorf("a check wrote a record that is not JSON: %v", err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// writeGraph draws the execution graph of the first bug in recs that has
// a trace.
func writeGraph(file string, recs []record, stderr io.Writer) error {
	for _, r := range recs {
		for _, b := range r.rec.Bugs {
			if b.Trace == nil {
				continue
			}
			if err := os.WriteFile(file, report.Render(file, b.Trace), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "weft test: wrote the execution graph of %s in %s to %s\n", r.rec.Test, r.rec.Package, file)
			return nil
		}
	}
	fmt.Fprintf(stderr, "weft test: no bug with a trace was found: %s was not written\n", file)
	return nil
}
