package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"weft.dev/weft/internal/parallel"
	"weft.dev/weft/internal/report"
)

// mergeCmd runs weft merge and returns its exit status.
func mergeCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var recs []report.Record
	read := func(name string, r io.Reader) error {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<30)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			var rec report.Record
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				return fmt.Errorf("%s:%d: not a record of weft test -json: %v", name, n, err)
			}
			recs = append(recs, rec)
		}
		return sc.Err()
	}
	if len(args) == 0 {
		args = []string{"-"}
	}
	for _, name := range args {
		if name == "-" {
			if err := read("standard input", stdin); err != nil {
				fmt.Fprintf(stderr, "weft merge: %v\n", err)
				return 2
			}
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "weft merge: %v\n", err)
			return 2
		}
		err = read(name, f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "weft merge: %v\n", err)
			return 2
		}
	}
	merged, problems, err := merge(recs)
	if err != nil {
		fmt.Fprintf(stderr, "weft merge: %v\n", err)
		return 2
	}
	status := 0
	for _, p := range problems {
		fmt.Fprintf(stderr, "weft merge: %s\n", p)
		status = 1
	}
	for _, r := range merged {
		line, err := json.Marshal(r)
		if err != nil {
			fmt.Fprintf(stderr, "weft merge: %v\n", err)
			return 2
		}
		fmt.Fprintf(stdout, "%s\n", line)
		if len(r.Bugs) > 0 {
			status = 1
		}
	}
	return status
}

// merge merges the records of the shards of each check (by package and
// test, in the order first seen): the counts summed, the bugs united (one
// per kind and message, in the order of the shards), exhaustive only if
// every shard is there and was exhaustive, the elapsed time the slowest
// shard's. It returns the problems that leave a check incomplete (a
// missing shard); records that cannot be merged are an error.
func merge(recs []report.Record) ([]report.Record, []string, error) {
	type check struct {
		shards map[int]report.Record
		n      int
		engine string
	}
	var order []string
	checks := map[string]*check{}
	for _, r := range recs {
		key := r.Package + "\x00" + r.Test
		name := fmt.Sprintf("%s %s", r.Package, r.Test)
		if r.Shard == "" {
			return nil, nil, fmt.Errorf("%s: a record without a shard (run weft test -shard i/n)", name)
		}
		i, n, err := parallel.ParseShard(r.Shard)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: shard %q: %v", name, r.Shard, err)
		}
		c := checks[key]
		if c == nil {
			c = &check{shards: map[int]report.Record{}, n: n, engine: r.Engine}
			checks[key] = c
			order = append(order, key)
		}
		if n != c.n {
			return nil, nil, fmt.Errorf("%s: shards of %d and of %d", name, c.n, n)
		}
		if _, dup := c.shards[i]; dup {
			return nil, nil, fmt.Errorf("%s: shard %s twice", name, r.Shard)
		}
		if r.Engine != c.engine {
			return nil, nil, fmt.Errorf("%s: shards explored by %s and by %s", name, c.engine, r.Engine)
		}
		c.shards[i] = r
	}
	var out []report.Record
	var problems []string
	for _, key := range order {
		c := checks[key]
		m := report.Record{Exhaustive: true, Bugs: []report.RecordBug{}}
		seen := map[string]bool{}
		var missing, errs []string
		for i := range c.n {
			r, ok := c.shards[i]
			if !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", i, c.n))
				m.Exhaustive = false
				continue
			}
			m.Package, m.Test, m.Engine = r.Package, r.Test, r.Engine
			m.Executions += r.Executions
			m.Complete += r.Complete
			m.Blocked += r.Blocked
			m.Redundant += r.Redundant
			m.SolverCalls += r.SolverCalls
			m.ElapsedSeconds = max(m.ElapsedSeconds, r.ElapsedSeconds)
			m.Exhaustive = m.Exhaustive && r.Exhaustive
			if r.Error != "" {
				errs = append(errs, fmt.Sprintf("shard %s: %s", r.Shard, r.Error))
			}
			for _, b := range r.Bugs {
				if k := b.Kind + "\x00" + b.Message; !seen[k] {
					seen[k] = true
					m.Bugs = append(m.Bugs, b)
				}
			}
		}
		m.Error = strings.Join(errs, "; ")
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("%s %s: no record of shard %s: the merged counts are not the whole exploration's", m.Package, m.Test, strings.Join(missing, ", ")))
		}
		out = append(out, m)
	}
	return out, problems, nil
}
