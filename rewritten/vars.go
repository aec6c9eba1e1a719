package rewritten

import "weft.dev/weft/internal/runtime"

// Vars registers the variables of the package pkg, given as pointers: each
// execution of a check starts from the values they had when the check
// started, and the check puts those back when it ends. weft test adds to
// each package it rewrites a file whose init function calls it with all
// the package's variables.
func Vars(pkg string, ptrs ...any) { runtime.RegisterVars(pkg, ptrs...) }
