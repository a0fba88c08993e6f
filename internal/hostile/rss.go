package hostile

import (
	"fmt"
	"sync"
	"time"
)

// ReadRSS returns process pid's resident set size in bytes (VmRSS of
// /proc/PID/status; Linux only).
func ReadRSS(pid int) (int64, error) { return procStatus(pid, "VmRSS:") }

// RSSSampler samples a process's VmRSS on a ticker and keeps the peak.
type RSSSampler struct {
	pid  int
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	peak    int64
	samples int
	err     error // the first failed read: the process is gone
}

// SampleRSS starts sampling pid every interval until Stop.
func SampleRSS(pid int, interval time.Duration) *RSSSampler {
	s := &RSSSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	s.sample()
	go s.run(interval)
	return s
}

func (s *RSSSampler) run(interval time.Duration) {
	defer close(s.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			s.sample()
			return
		case <-t.C:
			s.sample()
		}
	}
}

func (s *RSSSampler) sample() {
	v, err := ReadRSS(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return
	}
	s.samples++
	s.peak = max(s.peak, v)
}

// Peak is the largest VmRSS seen so far, in bytes.
func (s *RSSSampler) Peak() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// Samples is the number of successful samples.
func (s *RSSSampler) Samples() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samples
}

// Err is the first failed read (the process has exited), if any.
func (s *RSSSampler) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stop takes a last sample and stops sampling; it returns the peak.
func (s *RSSSampler) Stop() int64 {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	return s.Peak()
}

// MiB formats a byte count in MiB.
func MiB(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
