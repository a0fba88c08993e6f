package server

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"syscall"
)

// Listen binds the TCP listener on addr for Serve. A process calls it
// before New touches the data directory or the store, so a busy port
// writes nothing. A refusal says which process holds the port when that
// can be known, and how to pick another.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, listenError(addr, err)
	}
	return ln, nil
}

// listenError explains a failed bind of addr.
func listenError(addr string, err error) error {
	hint := "pick another with --listen, e.g. --listen " + nextPort(addr) + " (port 0 picks a free one)"
	if !errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listen: %w; %s", err, hint)
	}
	if who := portHolder(addr); who != "" {
		return fmt.Errorf("listen: %s is already in use by %s: stop it, or %s", addr, who, hint)
	}
	return fmt.Errorf("listen: %s is already in use (by another process): stop it, or %s", addr, hint)
}

// nextPort is addr with its port one higher: a suggestion to try.
func nextPort(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n <= 0 || n >= 65535 {
		return "127.0.0.1:7421"
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(n+1))
}

// warnOpenHosts warns, loudly (on stderr and in the log), when a server
// that creates shares for anyone who reaches it (--open,
// --opencode-open) names a public Host in --allowed-hosts: the loopback
// listener is then reached through a proxy from beyond this machine.
func warnOpenHosts(cfg *Config, w io.Writer, log *slog.Logger) {
	if !cfg.Open && !cfg.OpencodeOpen {
		return
	}
	var public []string
	for _, h := range cfg.Peers.AllowedHosts {
		if name, _, err := net.SplitHostPort(h); err == nil {
			h = name
		}
		if !IsLoopback(strings.Trim(h, "[]")) {
			public = append(public, h)
		}
	}
	if len(public) == 0 {
		return
	}
	flag := "--open"
	if cfg.OpencodeOpen {
		flag = "--opencode-open"
	}
	msg := fmt.Sprintf("%s with --allowed-hosts %s: anyone who reaches those names (through a proxy) can create shares on this vat without a token; "+
		"use creation tokens instead (sharevat opencode-token mint; docs/opencode.md)", flag, strings.Join(public, ","))
	fmt.Fprintf(w, "sharevat: WARNING: %s\n", msg)
	log.Warn("open server reachable by a public name: " + msg)
}
