package weft_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	gosync "sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"weft.dev/weft"
	watomic "weft.dev/weft/atomic"
	"weft.dev/weft/bench"
	"weft.dev/weft/sync"
)

// counters is a program without bugs: n goroutines increment a counter
// under a mutex.
func counters(n int) func() {
	return func() {
		var mu sync.Mutex
		var x weft.Var[int]
		inc := func() {
			mu.Lock()
			x.Store(x.Load() + 1)
			mu.Unlock()
		}
		var gs []*weft.Goroutine
		for range n - 1 {
			gs = append(gs, weft.Go(inc))
		}
		inc()
		for _, g := range gs {
			g.Join()
		}
	}
}

// TestCheckpoint checks that a check stopped after k executions, for k
// from the first to the last, with WithCheckpoint, and run again with the
// same file, ends with the result of a check never stopped; and that a
// checkpoint of a finished check gives its result again.
func TestCheckpoint(t *testing.T) {
	for _, c := range []struct {
		name   string
		body   func()
		engine string
	}{
		{"counters(6)", counters(6), "condpor"},
		{"lost updates(4)", lostUpdates(4), "dfs"},
		{"TreiberStack(2,2)", bench.TreiberStack(2, 2, false), "condpor"},
		{"Counter(2)", bench.Counter(2, true), "dfs"},
		{"FibBench", bench.FibBench(false), "condpor"},
	} {
		whole, err := weft.Explore(c.body, weft.WithEngine(c.engine), weft.WithWorkers(1))
		if err != nil {
			t.Fatal(err)
		}
		want := outcome(whole)
		for _, workers := range []int{1, 2} {
			for _, k := range []int64{1, int64(whole.Executions) / 2, int64(whole.Executions) - 1, int64(whole.Executions)} {
				file := filepath.Join(t.TempDir(), "ckpt")
				opts := []weft.Option{weft.WithEngine(c.engine), weft.WithWorkers(workers), weft.WithCheckpoint(file)}
				first, err := weft.Explore(c.body, append(opts, weft.StopAfter(max(k, 1)))...)
				if err != nil && !strings.Contains(err.Error(), "interrupted after") || err == nil && !first.Exhaustive && len(first.Bugs) == 0 {
					t.Errorf("%s, %d workers, stopped at %d: exhaustive %v, error %v", c.name, workers, k, first.Exhaustive, err)
				}
				for run := range 2 {
					got, err := weft.Explore(c.body, opts...)
					if err != nil || outcome(got) != want {
						t.Errorf("%s, %d workers, stopped at %d, run %d after: %v\n%s\nwant (never stopped):\n%s", c.name, workers, k, run+1, err, outcome(got), want)
					}
				}
			}
		}
	}
}

// TestCheckpointInterrupt checks that an interrupt (SIGINT) stops a
// check with a checkpoint, which fails saying so, that the checkpointed
// checks of the process after it do not run, and that the check run
// again (in a new process) resumes from it.
func TestCheckpointInterrupt(t *testing.T) {
	body := bench.Counter(2, true)
	whole, err := weft.Explore(body, weft.WithEngine("dfs"), weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ckpt")
	var runs atomic.Int64
	var once gosync.Once
	interrupting := func() {
		n := runs.Add(1)
		if n == int64(whole.Executions)/2 {
			once.Do(func() { syscall.Kill(os.Getpid(), syscall.SIGINT) })
		}
		if n >= int64(whole.Executions)/2 && n < int64(whole.Executions) {
			// The signal reaches the check through a goroutine of its
			// own: on a loaded machine (the whole module's tests at
			// once) the rest of the executions finished before it ran.
			time.Sleep(2 * time.Millisecond)
		}
		body()
	}
	opts := []weft.Option{weft.WithEngine("dfs"), weft.WithWorkers(2), weft.WithCheckpoint(file)}
	t.Cleanup(weft.ForgetInterrupt)
	first, err := weft.Explore(interrupting, opts...)
	if err == nil || !strings.Contains(err.Error(), "interrupted after") || first.Exhaustive {
		t.Fatalf("interrupted: exhaustive %v, error %v; want an interrupted error", first.Exhaustive, err)
	}
	other := filepath.Join(t.TempDir(), "other")
	if _, err := weft.Explore(body, weft.WithEngine("dfs"), weft.WithCheckpoint(other)); err == nil || !strings.Contains(err.Error(), "not run: an interrupt stopped an earlier check") {
		t.Errorf("a check after the interrupt: error %v, want it not run", err)
	}
	weft.ForgetInterrupt() // as a new process
	got, err := weft.Explore(interrupting, opts...)
	if err != nil || got.Executions != whole.Executions || got.Complete != whole.Complete || got.Blocked != whole.Blocked || !got.Exhaustive {
		t.Errorf("resumed: %v, %v; want %v", outcome(got), err, outcome(whole))
	}
}

// TestCheckpointErrors checks that a checkpoint that is not the check's,
// or not a checkpoint, and an engine that cannot checkpoint, are errors
// that say so.
func TestCheckpointErrors(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "ckpt")
	if _, err := weft.Explore(counters(3), weft.WithCheckpoint(ckpt), weft.StopAfter(1)); err != nil && !strings.Contains(err.Error(), "interrupted") {
		t.Fatal(err)
	}
	sampled := filepath.Join(dir, "sampled")
	random := []weft.Option{weft.WithEngine("random"), weft.WithSeed(1), weft.WithMaxExecutions(500), weft.WithCheckpoint(sampled)}
	if _, err := weft.Explore(counters(3), append(random, weft.StopAfter(1))...); err != nil && !strings.Contains(err.Error(), "interrupted") {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		body func()
		opts []weft.Option
		want string
	}{
		{"another engine", counters(3), []weft.Option{weft.WithEngine("dfs"), weft.WithCheckpoint(ckpt)}, "not of this exploration"},
		{"another body", counters(4), []weft.Option{weft.WithCheckpoint(ckpt)}, "not of this exploration"},
		{"WithAllBugs", counters(3), []weft.Option{weft.WithAllBugs(), weft.WithCheckpoint(ckpt)}, "not of this exploration"},
		{"not a checkpoint", counters(3), []weft.Option{weft.WithCheckpoint(junk)}, "not a checkpoint of weft"},
		{"random, another seed", counters(3), append(slices.Clone(random), weft.WithSeed(2)), "not of this exploration"},
		{"random, another number of executions", counters(3), append(slices.Clone(random), weft.WithMaxExecutions(600)), "not of this exploration"},
		{"qpor", counters(3), []weft.Option{weft.WithEngine("qpor"), weft.WithCheckpoint(ckpt)}, "the engine qpor cannot checkpoint"},
		{"sdpor", counters(3), []weft.Option{weft.WithEngine("sdpor"), weft.WithCheckpoint(ckpt)}, "the engine sdpor cannot checkpoint"},
		{"a directory that does not exist", counters(3), []weft.Option{weft.WithCheckpoint(filepath.Join(dir, "none", "ckpt"))}, "cannot be written"},
	} {
		_, err := weft.Explore(c.body, c.opts...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one that says %q", c.name, err, c.want)
		}
	}
}

// TestCheckpointTimeout checks that checks cut short by their timeout,
// each run again with the checkpoint, end with the result of one check
// never cut.
func TestCheckpointTimeout(t *testing.T) {
	body := bench.Counter(2, true)
	whole, err := weft.Explore(body, weft.WithEngine("dfs"), weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ckpt")
	cut := 0
	// A timeout shorter than the start of the exploration saves nothing:
	// each run has twice the time of the one before.
	for timeout := 20 * time.Millisecond; ; timeout *= 2 {
		if timeout > time.Minute {
			t.Fatalf("not over after %d runs cut short", cut)
		}
		got, err := weft.Explore(body, weft.WithEngine("dfs"), weft.WithWorkers(2), weft.WithTimeout(timeout), weft.WithCheckpoint(file))
		if err != nil {
			t.Fatal(err)
		}
		if got.Exhaustive {
			if outcome(got) != outcome(whole) {
				t.Errorf("after %d runs cut short: %s, want %s", cut, outcome(got), outcome(whole))
			}
			break
		}
		cut++
	}
	if cut == 0 {
		t.Errorf("the first run of %d executions took less than its 20ms timeout", whole.Executions)
	}
}

// TestCheckpointShards checks that each shard, stopped and resumed from
// its own checkpoint, gives its part: the shards add up to the whole.
func TestCheckpointShards(t *testing.T) {
	body := bench.Counter(2, true)
	opts := []weft.Option{weft.WithEngine("dfs"), weft.WithWorkers(2)}
	whole, err := weft.Explore(body, opts...)
	if err != nil {
		t.Fatal(err)
	}
	const shards = 3
	sum := 0
	for i := range shards {
		opts := append(slices.Clip(opts), weft.WithShard(i, shards), weft.WithCheckpoint(filepath.Join(t.TempDir(), "ckpt")))
		if _, err := weft.Explore(body, append(opts, weft.StopAfter(int64(whole.Executions)/shards/2))...); err == nil || !strings.Contains(err.Error(), "interrupted after") {
			t.Errorf("shard %d, stopped: error %v", i, err)
		}
		got, err := weft.Explore(body, opts...)
		if err != nil || !got.Exhaustive {
			t.Fatalf("shard %d, resumed: %s, %v", i, outcome(got), err)
		}
		sum += got.Executions
	}
	if sum != whole.Executions {
		t.Errorf("shards resumed: %d executions, want %d", sum, whole.Executions)
	}
}

// TestCheckpointDirectory checks that a directory keeps a file per check,
// which each check resumes from, and that one file given to two checks is
// an error that says so.
func TestCheckpointDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ckpts") + string(filepath.Separator)
	checks := []string{"pkg TestA", "pkg TestB/sub case"}
	want := map[string]string{}
	for _, name := range checks {
		r, err := weft.Explore(counters(3), weft.Named(name), weft.WithCheckpoint(dir))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want[name] = outcome(r)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) != len(checks) {
		t.Fatalf("%v in %s (%v), want a file per check", files, dir, err)
	}
	// Resumed from the directory, named without its separator: each check
	// finds its own file, of its finished exploration.
	for _, name := range checks {
		r, err := weft.Explore(counters(3), weft.Named(name), weft.WithCheckpoint(strings.TrimSuffix(dir, string(filepath.Separator))))
		if err != nil || outcome(r) != want[name] {
			t.Errorf("%s, resumed: %v, %v; want %s", name, outcome(r), err, want[name])
		}
	}
	// The shards of a check, each with its own file.
	var sum int
	for i := range 2 {
		r, err := weft.Explore(counters(3), weft.Named(checks[0]), weft.WithShard(i, 2), weft.WithCheckpoint(dir))
		if err != nil {
			t.Fatalf("shard %d of 2: %v", i, err)
		}
		sum += r.Executions
	}
	if whole, err := weft.Explore(counters(3)); err != nil || sum != whole.Executions {
		t.Errorf("two shards: %d executions, the whole exploration %d (%v)", sum, whole.Executions, err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(files) != len(checks)+2 {
		t.Errorf("%v in %s after two shards, want a file per check and one per shard", files, dir)
	}
	file := filepath.Join(t.TempDir(), "ckpt")
	if _, err := weft.Explore(counters(3), weft.Named(checks[0]), weft.WithCheckpoint(file)); err != nil {
		t.Fatal(err)
	}
	_, err = weft.Explore(counters(3), weft.Named(checks[1]), weft.WithCheckpoint(file))
	if err == nil || !strings.Contains(err.Error(), "the checkpoint of another check") || !strings.Contains(err.Error(), "-run") {
		t.Errorf("two checks, one file: error %v, want one that says the file is another check's", err)
	}
}

// TestCheckpointLost checks that an exploration whose checkpoint can no
// longer be saved (its directory was removed while it ran) stops with an
// error that says so, and that the bug it found comes with the error:
// Check reports both.
func TestCheckpointLost(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var remove gosync.Once
	body := func() {
		remove.Do(func() { os.RemoveAll(dir) })
		var x watomic.Int32
		g := weft.Go(func() { x.Store(x.Load() + 1) })
		x.Store(x.Load() + 1)
		g.Join()
		weft.Assert(x.Load() == 2, "lost update")
	}
	r := &recorder{TB: t, name: "TestCheckpointLost"}
	res := weft.Check(r, body, weft.WithEngine("dfs"), weft.WithCheckpoint(filepath.Join(dir, "ckpt")))
	if !strings.Contains(r.fatal, "stopped after") || !strings.Contains(r.fatal, "WithCheckpoint") {
		t.Errorf("Check failed with %q, want the checkpoint's error", r.fatal)
	}
	if len(res.Bugs) != 1 || len(r.errors) != 1 || !strings.Contains(r.errors[0], "lost update") {
		t.Errorf("bugs %d, reports %q: want the lost update, reported", len(res.Bugs), r.errors)
	}
}

// TestCheckpointStalled checks that a run stopped in the start of its
// exploration, which every run repeats, by an interrupt or by its
// timeout, says that the next run needs more time, and that a run
// interrupted once it began a part, which the next run cuts into parts,
// does not.
func TestCheckpointStalled(t *testing.T) {
	body := bench.Counter(2, true)
	opts := []weft.Option{weft.WithEngine("dfs"), weft.WithWorkers(1)}
	const note = "this run added nothing to its checkpoint"
	start, err := weft.Explore(body, append(opts, weft.WithCheckpoint(filepath.Join(t.TempDir(), "ckpt")), weft.StopAfter(1))...)
	if err == nil || !strings.Contains(err.Error(), "interrupted after") || !strings.Contains(err.Error(), note) {
		t.Errorf("stopped in its start: error %v, want an interrupted one with the note", err)
	}
	_, err = weft.Explore(body, append(opts, weft.WithCheckpoint(filepath.Join(t.TempDir(), "ckpt")), weft.StopAfter(int64(start.Executions+1)))...)
	if err == nil || !strings.Contains(err.Error(), "interrupted after") || strings.Contains(err.Error(), note) {
		t.Errorf("stopped after its start: error %v, want an interrupted one without the note", err)
	}
	var out strings.Builder
	_, err = weft.Explore(body, append(opts, weft.WithCheckpoint(filepath.Join(t.TempDir(), "ckpt")), weft.WithTimeout(time.Nanosecond), weft.WithProgress(&out))...)
	if err != nil || !strings.Contains(out.String(), "stopped by its timeout") || !strings.Contains(out.String(), note) {
		t.Errorf("timeout in the start: error %v, progress %q; want the note", err, out.String())
	}
}

// TestCheckpointInterruptFile checks that weft test's interrupt file
// (WEFT_INTERRUPT), made while a checkpointed check runs, stops it as an
// interrupt would, and that a check that finds it does not run.
func TestCheckpointInterruptFile(t *testing.T) {
	stop := filepath.Join(t.TempDir(), "interrupt")
	t.Setenv("WEFT_INTERRUPT", stop)
	t.Cleanup(weft.ForgetInterrupt)
	body := bench.Counter(2, true)
	var runs atomic.Int64
	interrupting := func() {
		if runs.Add(1) == 100 {
			os.WriteFile(stop, nil, 0o666)
		}
		time.Sleep(time.Millisecond) // the file is looked for every 100 ms
		body()
	}
	opts := []weft.Option{weft.WithEngine("dfs"), weft.WithWorkers(1)}
	res, err := weft.Explore(interrupting, append(opts, weft.WithCheckpoint(filepath.Join(t.TempDir(), "ckpt")))...)
	if err == nil || !strings.Contains(err.Error(), "interrupted after") || res.Exhaustive {
		t.Errorf("interrupted by the file: exhaustive %v, error %v; want an interrupted error", res.Exhaustive, err)
	}
	weft.ForgetInterrupt() // another process, which finds the file
	if _, err := weft.Explore(body, append(opts, weft.WithCheckpoint(filepath.Join(t.TempDir(), "ckpt")))...); err == nil || !strings.Contains(err.Error(), "not run") {
		t.Errorf("the file there: error %v, want the check not run", err)
	}
}
