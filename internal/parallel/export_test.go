package parallel

import "weft.dev/weft/internal/runtime"

// RunParts is Run that also returns the number of parts and how many
// times parts waited for the parts before them; with eager, a part splits
// whenever no other part waits for a worker.
func RunParts(body func(), cfg Config, eager bool) (r *runtime.Report, parts, waits int) {
	r, s, _ := run(body, cfg, eager, nil)
	return r, s.parts, s.waits
}

// BallastPerWorker is ballastPerWorker.
const BallastPerWorker = ballastPerWorker

// CutParts returns ck with the parts cut by an earlier run cut into n
// parts, not partsPerShard.
func CutParts(ck Checkpoint, n int) Checkpoint {
	ck.cutParts = n
	return ck
}

// WithStartEvents returns cfg with the events that the parts of a start
// may hold bounded by n, not startEvents.
func WithStartEvents(cfg Config, n int) Config {
	cfg.startEvents = n
	return cfg
}
