package main

import (
	"log/slog"
	"net"

	"github.com/sharevat/sharevat/server"
)

// validateOpen refuses --open on a listener beyond loopback, where it
// would let anyone who reaches the address (or, through DNS rebinding,
// any web page one of them visits) create shares, unless
// --open-beyond-loopback says so on purpose, and then only with
// --allowed-hosts, which defeats DNS rebinding.
func (f *serveFlags) validateOpen() error {
	switch {
	case f.opencodeOpen && !listenLoopback(f.listen):
		return usagef("--opencode-open lets anyone who reaches --listen create shares, and %s is not a loopback address: "+
			"listen on 127.0.0.1 (the default), or drop --opencode-open and put a creation token in opencode's enterprise.url "+
			"(sharevat opencode-token mint; docs/opencode.md)", f.listen)
	case f.openWide && !f.open:
		return usagef("--open-beyond-loopback goes with --open")
	case !f.open || listenLoopback(f.listen):
		return nil
	case !f.openWide:
		return usagef("--open lets anyone who reaches --listen create shares, and %s is not a loopback address: "+
			"listen on 127.0.0.1 (the default), or drop --open and create shares with the admin token "+
			"(to open the vat to the network on purpose, add --open-beyond-loopback and --allowed-hosts)", f.listen)
	case f.peers.allowedHosts == "":
		return usagef("--open-beyond-loopback needs --allowed-hosts (the names this vat answers to): " +
			"without it any web page can reach the vat through DNS rebinding and create shares")
	}
	return nil
}

// checkOpenListener repeats validateOpen's rule on the address the
// listener got (a name such as localhost may resolve beyond loopback),
// and warns when --open-beyond-loopback is in effect.
func (f *serveFlags) checkOpenListener(addr net.Addr, log *slog.Logger) error {
	if f.opencodeOpen && !server.LoopbackAddr(addr) {
		return usagef("--opencode-open on %s, which is not a loopback address: listen on 127.0.0.1", addr)
	}
	if !f.open || server.LoopbackAddr(addr) {
		return nil
	}
	if !f.openWide {
		return usagef("--open on %s, which is not a loopback address: listen on 127.0.0.1 or add --open-beyond-loopback", addr)
	}
	log.Warn("--open-beyond-loopback: anyone who can reach this address may create shares", "listen", addr.String())
	return nil
}

// listenLoopback reports whether a --listen address names loopback
// ("localhost" or a loopback IP address; an empty host is every
// interface).
func listenLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	return err == nil && server.IsLoopback(host)
}
