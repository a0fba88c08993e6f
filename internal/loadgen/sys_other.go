//go:build !linux

package loadgen

import (
	"syscall"
	"time"
)

// childProcAttr: no parent-death signal outside Linux.
func childProcAttr() *syscall.SysProcAttr { return nil }

// raiseNoFile leaves the limit alone outside Linux; opening too many
// connections then fails with a clear dial error.
func raiseNoFile(uint64) error { return nil }

// selfRSS is unknown outside Linux.
func selfRSS() uint64 { return 0 }

// selfCPU is unknown outside Linux.
func selfCPU() time.Duration { return 0 }

// procRSS is unknown outside Linux.
func procRSS(int) (anon, file float64) { return 0, 0 }

// machineBusy is unknown outside Linux.
func machineBusy() time.Duration { return 0 }
