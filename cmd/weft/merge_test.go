package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"weft.dev/weft/internal/report"
)

func TestMerge(t *testing.T) {
	rec := func(shard string, execs, complete, blocked int, exhaustive bool, bugs ...string) report.Record {
		r := report.Record{Package: "p", Test: "T", Engine: "condpor", Shard: shard, Executions: execs, Complete: complete, Blocked: blocked,
			Exhaustive: exhaustive, ElapsedSeconds: float64(execs), Bugs: []report.RecordBug{}}
		for _, b := range bugs {
			r.Bugs = append(r.Bugs, report.RecordBug{Kind: "assertion failed", Message: b})
		}
		return r
	}
	tests := []struct {
		name     string
		in       []report.Record
		want     string // the merged record's counts, exhaustiveness, bugs
		problems int
		err      string
	}{
		{"sums", []report.Record{rec("1/3", 5, 4, 1, true), rec("0/3", 7, 7, 0, true), rec("2/3", 1, 0, 1, true)},
			"13 11 2 true [] 7", 0, ""},
		{"bugs united", []report.Record{rec("0/2", 3, 3, 0, false, "a"), rec("1/2", 4, 4, 0, false, "b", "a")},
			"7 7 0 false [a b] 4", 0, ""},
		{"one not exhaustive", []report.Record{rec("0/2", 3, 3, 0, true), rec("1/2", 4, 4, 0, false)},
			"7 7 0 false [] 4", 0, ""},
		{"missing shard", []report.Record{rec("0/3", 3, 3, 0, true), rec("2/3", 4, 4, 0, true)},
			"7 7 0 false [] 4", 1, ""},
		{"twice", []report.Record{rec("0/2", 3, 3, 0, true), rec("0/2", 3, 3, 0, true)}, "", 0, "shard 0/2 twice"},
		{"different n", []report.Record{rec("0/2", 3, 3, 0, true), rec("1/3", 3, 3, 0, true)}, "", 0, "shards of 2 and of 3"},
		{"no shard", []report.Record{rec("", 3, 3, 0, true)}, "", 0, "without a shard"},
	}
	for _, tt := range tests {
		out, problems, err := merge(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one with %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || len(out) != 1 {
			t.Fatalf("%s: %d records, error %v", tt.name, len(out), err)
		}
		m := out[0]
		var bugs []string
		for _, b := range m.Bugs {
			bugs = append(bugs, b.Message)
		}
		got := fmt.Sprintf("%d %d %d %v [%s] %v", m.Executions, m.Complete, m.Blocked, m.Exhaustive, strings.Join(bugs, " "), m.ElapsedSeconds)
		if got != tt.want || len(problems) != tt.problems || m.Shard != "" {
			t.Errorf("%s: %s (shard %q), %d problems %v; want %s, %d problems", tt.name, got, m.Shard, len(problems), problems, tt.want, tt.problems)
		}
	}
}

// TestMergeCmd runs weft merge on the standard input.
func TestMergeCmd(t *testing.T) {
	var in bytes.Buffer
	for _, shard := range []string{"0/2", "1/2"} {
		line, _ := json.Marshal(report.Record{Package: "p", Test: "T", Engine: "dfs", Shard: shard, Executions: 2, Complete: 2, Exhaustive: true, Bugs: []report.RecordBug{}})
		in.Write(append(line, '\n'))
	}
	var out, errOut bytes.Buffer
	if st := mergeCmd(nil, &in, &out, &errOut); st != 0 {
		t.Fatalf("status %d: %s", st, errOut.String())
	}
	var m report.Record
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || m.Executions != 4 || !m.Exhaustive {
		t.Errorf("merged %s (%v), want 4 executions, exhaustive", out.String(), err)
	}
}
