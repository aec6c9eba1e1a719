//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// shield starts cmd in a process group of its own, which the terminal's
// interrupts (Ctrl-C) do not reach.
func shield(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup ends the started cmd and every process of its group.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
