package shards

import (
	"testing"

	"weft.dev/weft"
)

// TestBank is the check that job.yaml and workflow.yml run in shards.
func TestBank(t *testing.T) {
	weft.Check(t, Transfers)
}
