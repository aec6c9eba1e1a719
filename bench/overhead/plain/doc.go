// Package plain holds the programs of weft.dev/weft/bench/overhead written
// in plain Go, with goroutines, channels, select, sync, sync/atomic, time
// and context, as weft test finds them in the tests of a package. Each
// panics when its result is wrong.
//
// It comes twice: as written (weft.dev/weft/bench/overhead/plain), and as
// weft test rewrites it (weft.dev/weft/bench/overhead/rewritten/plain),
// internal/rewrite's output for the files of the first, gofmt'ed. A test
// of the first fails when the second is not that output;
//
//	go test ./bench/overhead/plain -run TestRewrittenUpToDate -update
//
// regenerates the second after a change of the first or of the rewriter.
package plain
