package hostile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Serve is a `sharevat serve` process started by StartServe, for tools
// that run outside `go test` (tests use internal/proctest).
type Serve struct {
	Cmd  *exec.Cmd
	URL  string // ws://127.0.0.1:port/rpc
	Data string // its data directory

	done chan struct{}
	mu   sync.Mutex
	log  []string // the last lines of its stderr
}

// StartServe runs `bin serve --listen 127.0.0.1:0 --data dataDir
// extra...` and waits (up to 60 s) until it says where it serves.
func StartServe(bin, dataDir string, extra ...string) (*Serve, error) {
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", dataDir, "--log-level", "warn"}, extra...)
	s := &Serve{Cmd: exec.Command(bin, args...), Data: dataDir, done: make(chan struct{})}
	stderr, err := s.Cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.Cmd.Start(); err != nil {
		return nil, err
	}
	urls := make(chan string, 1)
	go s.scan(stderr, urls)
	select {
	case s.URL = <-urls:
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("serve exited (%v): %s", s.Cmd.ProcessState, s.Log())
	case <-time.After(60 * time.Second):
		s.Kill()
		return nil, fmt.Errorf("serve did not start: %s", s.Log())
	}
}

func (s *Serve) scan(r io.Reader, urls chan<- string) {
	defer close(s.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		s.mu.Lock()
		s.log = append(s.log, line)
		if len(s.log) > 50 {
			s.log = s.log[1:]
		}
		s.mu.Unlock()
		if u, ok := strings.CutPrefix(line, "sharevat: serving on "); ok {
			urls <- u
		}
	}
	_, _ = io.Copy(io.Discard, r)
	_ = s.Cmd.Wait()
}

// Log returns the last lines the process wrote to stderr.
func (s *Serve) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.log, "\n")
}

// Pid is the process id.
func (s *Serve) Pid() int { return s.Cmd.Process.Pid }

// Done is closed once the process has exited and been reaped.
func (s *Serve) Done() <-chan struct{} { return s.done }

// Exited reports whether the process has exited, and its state if so.
func (s *Serve) Exited() (bool, *os.ProcessState) {
	select {
	case <-s.done:
		return true, s.Cmd.ProcessState
	default:
		return false, nil
	}
}

// Kill SIGKILLs the process and waits until it is reaped.
func (s *Serve) Kill() {
	_ = s.Cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}
