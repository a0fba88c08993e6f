package hostile

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// ReadHWM returns process pid's peak resident set size in bytes (VmHWM
// of /proc/PID/status; Linux only): what a process took at its worst,
// however briefly, which a sampler may miss.
func ReadHWM(pid int) (int64, error) { return procStatus(pid, "VmHWM:") }

// procStatus returns the size in bytes that field (e.g. "VmRSS:") of
// /proc/PID/status gives in kB.
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte(field)); ok {
			f := bytes.Fields(v)
			if len(f) < 1 {
				break
			}
			kb, err := strconv.ParseInt(string(f[0]), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("hostile: no %s in the status of pid %d", field, pid)
}

// ReadRssAnon returns process pid's resident anonymous memory in bytes
// (RssAnon of /proc/PID/status; Linux only): what it allocated, without
// the pages of files it maps (for the vat, its bbolt data file, whose
// pages a read brings in and the kernel may drop at any time).
func ReadRssAnon(pid int) (int64, error) { return procStatus(pid, "RssAnon:") }
