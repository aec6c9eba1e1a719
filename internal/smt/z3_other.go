//go:build !((darwin || freebsd || linux || netbsd) && !android && !faketime)

package smt

import (
	"fmt"
	"runtime"
)

// newZ3 fails where purego cannot load shared libraries.
func newZ3() (backend, error) {
	return nil, fmt.Errorf("smt: the z3 solver is not supported on %s/%s; use the builtin solver", runtime.GOOS, runtime.GOARCH)
}
