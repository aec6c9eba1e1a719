//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// endings are the signals that end weft test at once, and the shielded
// go test with it, which they would not reach otherwise (a CI job
// cancelled).
var endings = []os.Signal{syscall.SIGTERM, syscall.SIGHUP}

// shield starts cmd in a process group of its own, which the terminal's
// interrupts (Ctrl-C) do not reach.
func shield(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup ends the started cmd and every process of its group.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
