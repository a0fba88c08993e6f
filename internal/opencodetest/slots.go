package opencodetest

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
)

// Slots is how many opencode commands run at once on this machine, over
// all test processes (each opencode run is a large runtime; more at once
// on a small shared machine only makes each slower than RunTimeout).
const Slots = 2

// slotTurn spreads this process's commands over the slots.
var slotTurn atomic.Uint32

// slot takes one of the machine's Slots (an exclusive flock on a file in
// the temporary directory, waiting for it) and returns its release.
func slot() (release func(), err error) {
	dir := filepath.Join(os.TempDir(), "sharevat-opencode-slots")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	start := int(slotTurn.Add(1)) + os.Getpid()
	for i := range Slots {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprint((start+i)%Slots)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			return nil, err
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			return func() { f.Close() }, nil
		}
		f.Close()
	}
	return waitSlot(dir, start%Slots)
}

// waitSlot waits for slot n, at most 30 minutes.
func waitSlot(dir string, n int) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprint(n)), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, err
		}
		return func() { f.Close() }, nil
	case <-time.After(30 * time.Minute):
		f.Close()
		return nil, fmt.Errorf("opencodetest: no opencode slot free within 30 minutes")
	}
}
