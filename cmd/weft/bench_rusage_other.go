//go:build !unix

package main

import "os"

// peakMB returns 0: the peak memory of a process is not measured here.
func peakMB(*os.ProcessState) float64 { return 0 }

// cpuSeconds returns 0: the CPU time is not measured here, and the ratio
// uses the wall time.
func cpuSeconds() float64 { return 0 }
