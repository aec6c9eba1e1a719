package shards

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"weft.dev/weft"
)

// command is what a manifest runs: weft test on a shard of a check.
type command struct {
	shards int    // the n of -shard i/n
	run    string // the -run pattern
	pkg    string // the package, relative to the module's root
}

// weftTest matches the weft test command of the manifests; the shard
// index is whatever the runner substitutes.
var weftTest = regexp.MustCompile(`go run \./cmd/weft test -shard "?(.+?)/(\d+)"? -json -run '([^']*)' (\./\S+) >`)

// parseCommand parses the weft test command in line, whose shard index
// must be index.
func parseCommand(t *testing.T, line, index string) command {
	t.Helper()
	m := weftTest.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no weft test -shard i/n -json -run ... command in %q", line)
	}
	if m[1] != index {
		t.Errorf("the shard index is %s, want %s", m[1], index)
	}
	n, _ := strconv.Atoi(m[2])
	return command{shards: n, run: m[3], pkg: m[4]}
}

// job is the part of a Kubernetes Job that the example relies on.
type job struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name    string   `yaml:"name"`
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// workflow is the part of a GitHub Actions workflow that the example
// relies on.
type workflow struct {
	Jobs map[string]struct {
		Needs    string `yaml:"needs"`
		If       string `yaml:"if"`
		Strategy struct {
			FailFast *bool            `yaml:"fail-fast"`
			Matrix   map[string][]int `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// decode parses the YAML file name into v: a field of the wrong type is
// an error, one that v does not name is ignored.
func decode(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestJob checks job.yaml: an Indexed Job whose completions are the
// shards of its weft test command, each pod writing its shard's record.
func TestJob(t *testing.T) {
	var j job
	decode(t, "job.yaml", &j)
	s := j.Spec
	if j.APIVersion != "batch/v1" || j.Kind != "Job" || s.CompletionMode != "Indexed" {
		t.Errorf("%s %s, completion mode %q: want an Indexed batch/v1 Job", j.APIVersion, j.Kind, s.CompletionMode)
	}
	if s.Parallelism < 1 || s.Parallelism > s.Completions {
		t.Errorf("parallelism %d for %d completions", s.Parallelism, s.Completions)
	}
	if s.BackoffLimit == nil || *s.BackoffLimit != 0 || s.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("a shard that finds a bug is retried: backoffLimit %v, restartPolicy %q", s.BackoffLimit, s.Template.Spec.RestartPolicy)
	}
	cs := s.Template.Spec.Containers
	if len(cs) != 1 || len(cs[0].Args) != 1 || !slices.Equal(cs[0].Command, []string{"sh", "-c"}) {
		t.Fatalf("want one container running one sh -c command, got %+v", cs)
	}
	line := cs[0].Args[0]
	c := parseCommand(t, line, "$JOB_COMPLETION_INDEX")
	if c.shards != s.Completions {
		t.Errorf("-shard .../%d for %d completions", c.shards, s.Completions)
	}
	if !strings.HasSuffix(line, `> "/results/shard-$JOB_COMPLETION_INDEX.jsonl"`) {
		t.Errorf("the pods do not write their records to /results/shard-INDEX.jsonl: %s", line)
	}
	checkCommand(t, c)
}

// TestWorkflow checks workflow.yml: a matrix job per shard, each
// uploading its record, and a job that merges them.
func TestWorkflow(t *testing.T) {
	var w workflow
	decode(t, "workflow.yml", &w)
	shard, ok := w.Jobs["shard"]
	if !ok {
		t.Fatal("no job named shard")
	}
	matrix := shard.Strategy.Matrix["shard"]
	for i, v := range matrix {
		if v != i {
			t.Errorf("matrix.shard = %v, want 0, 1, ... n-1", matrix)
			break
		}
	}
	if shard.Strategy.FailFast == nil || *shard.Strategy.FailFast {
		t.Error("a bug in one shard cancels the others: want fail-fast: false")
	}
	var cmds []command
	uploads := 0
	for _, st := range shard.Steps {
		if strings.Contains(st.Run, "weft test") {
			cmds = append(cmds, parseCommand(t, st.Run, "${{ matrix.shard }}"))
		}
		if strings.HasPrefix(st.Uses, "actions/upload-artifact@") && st.With["path"] == "shard-${{ matrix.shard }}.jsonl" {
			uploads++
		}
	}
	if len(cmds) != 1 || uploads != 1 {
		t.Fatalf("%d weft test commands and %d uploads of shard-${{ matrix.shard }}.jsonl, want one of each", len(cmds), uploads)
	}
	if cmds[0].shards != len(matrix) {
		t.Errorf("-shard .../%d for a matrix of %d shards", cmds[0].shards, len(matrix))
	}
	checkCommand(t, cmds[0])
	merge, ok := w.Jobs["merge"]
	if !ok || merge.Needs != "shard" || !strings.Contains(merge.If, "always()") {
		t.Fatalf("want a job merge that needs shard and runs always, got %+v", merge)
	}
	merged := false
	for _, st := range merge.Steps {
		merged = merged || strings.Contains(st.Run, "go run ./cmd/weft merge shard-*.jsonl")
	}
	if !merged {
		t.Error("the merge job does not run weft merge shard-*.jsonl")
	}
}

// checkCommand checks that c runs TestBank in this package, and that its
// shards, run here, add up to the whole exploration.
func checkCommand(t *testing.T, c command) {
	t.Helper()
	if c.pkg != "./examples/shards" || !regexp.MustCompile(c.run).MatchString("TestBank") || regexp.MustCompile(c.run).MatchString("TestJob") {
		t.Errorf("the command runs %s in %s, want TestBank alone in ./examples/shards", c.run, c.pkg)
	}
	if c.shards < 2 {
		t.Fatalf("%d shards", c.shards)
	}
	// The exploration must not be sharded twice when this test itself
	// runs under weft test -shard.
	t.Setenv("WEFT_SHARD", "")
	whole, err := weft.Explore(Transfers)
	if err != nil || len(whole.Bugs) > 0 || !whole.Exhaustive {
		t.Fatalf("the whole exploration: %v, bugs %v, exhaustive %v", err, whole.Bugs, whole.Exhaustive)
	}
	var sum weft.Result
	for i := range c.shards {
		r, err := weft.Explore(Transfers, weft.WithShard(i, c.shards))
		if err != nil || len(r.Bugs) > 0 || !r.Exhaustive {
			t.Fatalf("shard %d/%d: %v, bugs %v, exhaustive %v", i, c.shards, err, r.Bugs, r.Exhaustive)
		}
		if r.Executions == 0 {
			t.Errorf("shard %d/%d explored nothing: the whole exploration (%d executions) is too small for %d shards", i, c.shards, whole.Executions, c.shards)
		}
		sum.Executions += r.Executions
		sum.Complete += r.Complete
		sum.Blocked += r.Blocked
	}
	if sum.Executions != whole.Executions || sum.Complete != whole.Complete || sum.Blocked != whole.Blocked {
		t.Errorf("%d shards: %d executions (%d complete, %d blocked), the whole exploration %d (%d, %d)",
			c.shards, sum.Executions, sum.Complete, sum.Blocked, whole.Executions, whole.Complete, whole.Blocked)
	}
}
