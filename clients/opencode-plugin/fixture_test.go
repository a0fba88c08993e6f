package opencodeplugin_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharevat/sharevat/internal/opencodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// shared is what the package's tests share, started by the first test
// that needs it and ended by TestMain: one vat (with a creation token of
// its opencode door) and one opencode installation, in which each
// real-opencode test makes a project of its own (opencode's plugin
// set-up, tens of seconds at an installation's first start, then happens
// once per test binary instead of once per test).
var shared struct {
	once     sync.Once
	dir      string // removed by TestMain
	vat      *vatProc
	creation string // the file holding the creation token
	root     *opencodetest.Root
	err      error
}

// sharedVat returns the shared vat and its creation token file, starting
// them the first time.
func sharedVat(t *testing.T) (*vatProc, string) {
	t.Helper()
	bin := server.Binary(t)
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "sharevat-ocplugin-shared-")
		if shared.err != nil {
			return
		}
		shared.vat, shared.err = startVat(bin, filepath.Join(shared.dir, "data"))
		if shared.err != nil {
			return
		}
		shared.creation, shared.err = mintCreationToken(bin, shared.vat.URL, shared.vat.Data, shared.dir)
	})
	if shared.err != nil {
		t.Fatalf("the shared vat: %v", shared.err)
	}
	return shared.vat, shared.creation
}

// sharedRoot returns the shared opencode installation, made the first
// time (it skips the test with a NOTICE when opencode is not installed).
func sharedRoot(t *testing.T) *opencodetest.Root {
	t.Helper()
	sharedVat(t)
	if shared.root == nil {
		dir := filepath.Join(shared.dir, "opencode")
		shared.root = opencodetest.NewRootIn(t, dir, opencodetest.Config{})
	}
	return shared.root
}

// endShared stops the shared vat and removes the shared directory.
func endShared() {
	if shared.vat != nil {
		shared.vat.kill()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

// vatProc is a `sharevat serve` that outlives the test that started it.
type vatProc struct {
	cmd  *exec.Cmd
	URL  string // ws://127.0.0.1:port/rpc
	Data string // its --data directory
	done chan struct{}
	mu   sync.Mutex
	log  strings.Builder // its stderr, for failure messages
}

// startVat runs `bin serve` on a free loopback port with data and
// returns once it serves (at most 60 s).
func startVat(bin, data string) (*vatProc, error) {
	v := &vatProc{cmd: exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data", data), Data: data, done: make(chan struct{})}
	stderr, err := v.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := v.cmd.Start(); err != nil {
		return nil, err
	}
	urls := make(chan string, 1)
	go func() {
		defer close(v.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			v.mu.Lock()
			if v.log.Len() < 1<<20 {
				v.log.WriteString(sc.Text() + "\n")
			}
			v.mu.Unlock()
			if u, ok := strings.CutPrefix(sc.Text(), "sharevat: serving on "); ok {
				urls <- u
			}
		}
		_ = v.cmd.Wait()
	}()
	select {
	case v.URL = <-urls:
		return v, nil
	case <-v.done:
		return nil, fmt.Errorf("sharevat serve exited before serving:\n%s", v.Log())
	case <-time.After(60 * time.Second):
		v.kill()
		return nil, fmt.Errorf("sharevat serve did not serve within 60 s:\n%s", v.Log())
	}
}

// Log is what the vat printed so far.
func (v *vatProc) Log() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.log.String()
}

// kill SIGKILLs the vat and waits for it.
func (v *vatProc) kill() {
	_ = v.cmd.Process.Kill()
	<-v.done
}

// httpBase is a vat URL's http://host:port.
func httpBase(url string) string {
	return "http" + strings.TrimPrefix(strings.TrimSuffix(url, "/rpc"), "ws")
}

// startOwnVat is a vat of the test's own (for a test that kills it).
func startOwnVat(t *testing.T) *proctest.Server {
	t.Helper()
	return proctest.StartServe(t, server.Binary(t))
}
