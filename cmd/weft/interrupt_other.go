//go:build !unix

package main

import (
	"os"
	"os/exec"
)

// endings is empty: shield does not keep signals from go test.
var endings []os.Signal

// shield does nothing: the interrupts reach cmd and its children too.
func shield(*exec.Cmd) {}

// killGroup ends the started cmd.
func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
