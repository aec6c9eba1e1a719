package parallel

import "weft.dev/weft/internal/runtime"

// RunParts is Run that also returns the number of parts; with eager, a
// part splits whenever no other part waits for a worker.
func RunParts(body func(), cfg Config, eager bool) (*runtime.Report, int) {
	r, n, _ := run(body, cfg, eager, nil)
	return r, n
}

// BallastPerWorker is ballastPerWorker.
const BallastPerWorker = ballastPerWorker
