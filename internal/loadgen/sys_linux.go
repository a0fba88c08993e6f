package loadgen

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// childProcAttr makes the bench's vat die with the bench, whatever
// kills it.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// raiseNoFile raises this process's open-file limit to at least n (up to
// the hard limit). Calling Setrlimit also makes children started after it
// inherit the raised limit (Go otherwise restores the original one).
func raiseNoFile(n uint64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("bench: getrlimit: %w", err)
	}
	if lim.Max < n {
		return fmt.Errorf("bench: needs %d open files; the hard limit is %d (raise it: ulimit -Hn)", n, lim.Max)
	}
	lim.Cur = max(lim.Cur, n)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("bench: setrlimit: %w", err)
	}
	return nil
}

// selfRSS returns this process's resident set size in bytes, or 0.
func selfRSS() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// selfCPU is the CPU time this process used so far (user + system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procRSS returns a process's anonymous and file-backed resident bytes
// (file-backed includes the pages of bbolt's memory-mapped data file).
func procRSS(pid int) (anon, file float64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		switch {
		case err != nil:
		case k == "RssAnon":
			anon = kb * 1024
		case k == "RssFile":
			file = kb * 1024
		}
	}
	return anon, file
}

// machineBusy is the CPU time every process of the machine used so far
// (all CPUs; from /proc/stat), or 0.
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var ticks uint64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseUint(v, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100) // USER_HZ is 100 on Linux
}
