package npmpublish_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// registry is a Verdaccio (interop/npmpublish/node_modules, pinned) on
// loopback with a storage directory of its own, a user made for the
// test, and an npmrc (userconfig) pointing npm at it with that user's
// token. @sharevat/* is served from its storage only; everything else
// goes to npmjs.org through its uplink (opencode's own packages, capnweb
// and ws).
type registry struct {
	URL    string // http://127.0.0.1:port/
	NPMRC  string // the userconfig file: registry and token
	dir    string
	cmd    *exec.Cmd
	done   chan struct{}
	mu     sync.Mutex
	output bytes.Buffer // what verdaccio printed (at most 1 MiB kept)
}

// verdaccioConfig is the registry's config.yaml: storage, a htpasswd
// file anyone may register in, no uplink for @sharevat/*.
const verdaccioConfig = `storage: %[1]s/storage
auth:
  htpasswd:
    file: %[1]s/htpasswd
uplinks:
  npmjs:
    url: https://registry.npmjs.org/
packages:
  '@sharevat/*':
    access: $all
    publish: $authenticated
  '**':
    access: $all
    publish: $authenticated
    proxy: npmjs
log: { type: stdout, format: pretty, level: warn }
`

// startRegistry starts Verdaccio with node in dir (which outlives any
// one test) and returns once it serves and a user is registered. A port
// taken between choosing and binding it is retried.
func startRegistry(node, dir string) (*registry, error) {
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), fmt.Appendf(nil, verdaccioConfig, dir), 0o600); err != nil {
		return nil, err
	}
	var err error
	for range 3 {
		var r *registry
		if r, err = launch(node, dir); err == nil {
			return r, r.login()
		}
	}
	return nil, err
}

// launch runs verdaccio on a free loopback port and waits (at most 60 s)
// for its "http address" line.
func launch(node, dir string) (*registry, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	bin := filepath.Join("node_modules", "verdaccio", "bin", "verdaccio")
	r := &registry{dir: dir, URL: fmt.Sprintf("http://127.0.0.1:%d/", port), done: make(chan struct{})}
	r.cmd = exec.Command(node, bin, "--config", filepath.Join(dir, "config.yaml"), "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	r.cmd.Stderr = r.cmd.Stdout
	if err := r.cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan struct{})
	go r.read(out, ready)
	select {
	case <-ready:
		return r, nil
	case <-r.done:
		return nil, fmt.Errorf("verdaccio exited before serving:\n%s", r.Output())
	case <-time.After(60 * time.Second):
		r.stop()
		return nil, fmt.Errorf("verdaccio did not serve within 60 s:\n%s", r.Output())
	}
}

// read keeps what verdaccio prints, closes ready at its "http address"
// line, and reaps the process at EOF.
func (r *registry) read(out io.Reader, ready chan struct{}) {
	defer close(r.done)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		r.mu.Lock()
		if r.output.Len() < 1<<20 {
			r.output.WriteString(sc.Text() + "\n")
		}
		r.mu.Unlock()
		if strings.Contains(sc.Text(), "http address") && ready != nil {
			close(ready)
			ready = nil
		}
	}
	_ = r.cmd.Wait()
}

// Output is what verdaccio printed so far.
func (r *registry) Output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.output.String()
}

// stop kills verdaccio and waits for it.
func (r *registry) stop() {
	_ = r.cmd.Process.Kill()
	<-r.done
}

// login registers a user through the registry's API (what `npm adduser`
// does) and writes the npmrc holding its token.
func (r *registry) login() error {
	body := `{"name":"sharevat-ci","password":"sharevat-ci-password"}`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, r.URL+"-/user/org.couchdb.user:sharevat-ci", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("registering a user: %w", err)
	}
	defer resp.Body.Close()
	var u struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&u); err != nil || u.Token == "" {
		return fmt.Errorf("registering a user: %s, no token (%v)", resp.Status, err)
	}
	host := strings.TrimPrefix(r.URL, "http:")
	r.NPMRC = filepath.Join(r.dir, "npmrc")
	rc := fmt.Sprintf("registry=%s\n%s:_authToken=%s\naudit=false\nfund=false\nupdate-notifier=false\n", r.URL, host, u.Token)
	return os.WriteFile(r.NPMRC, []byte(rc), 0o600)
}

// Env is the environment for an npm (or opencode) command that should
// use the registry: the test's, with the registry's npmrc as the user
// config and NPM_CONFIG_REGISTRY set.
func (r *registry) Env(extra ...string) []string {
	env := append(os.Environ(), "NPM_CONFIG_USERCONFIG="+r.NPMRC, "NPM_CONFIG_REGISTRY="+r.URL)
	return append(env, extra...)
}

// freePort is a loopback port nothing listens on right now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
