package report

// Record is the outcome of one check (one call of weft.Check) in weft's
// JSON output: the test binary appends one Record per line to the file
// named by WEFT_JSON, and `weft test -json` prints them.
type Record struct {
	Package        string  `json:"package"` // import path of the test's package
	Test           string  `json:"test"`    // as testing.TB.Name gives it
	Engine         string  `json:"engine"`
	Executions     int     `json:"executions"`
	Complete       int     `json:"complete"`
	Blocked        int     `json:"blocked"`
	Redundant      int     `json:"redundant,omitempty"` // weft.Result.Redundant
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	SolverCalls    int     `json:"solver_calls"`
	Exhaustive     bool    `json:"exhaustive"`
	// Shard is the part of the exploration the check explored, "i/n"
	// (weft.WithShard), or "" for the whole.
	Shard string      `json:"shard,omitempty"`
	Bugs  []RecordBug `json:"bugs"` // never null
	// Error is set when the check could not run (a bad option, a replay
	// token that does not fit).
	Error string `json:"error,omitempty"`
}

// RecordBug is a bug in a Record.
type RecordBug struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Replay  string `json:"replay"`
	Trace   *Trace `json:"trace"` // null when the bug could not be replayed
}
