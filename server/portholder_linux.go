package server

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tcpListen is the state column of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// portHolder names the process listening on addr's TCP port, as
// "process PID (NAME)", from /proc/net/tcp{,6} and the socket links in
// /proc/*/fd; "" when it cannot be known (another user's process, no
// /proc). It never fails: it only adds to an error message. NAME is the
// executable's short name (/proc/PID/comm), never its command line,
// which may hold secrets.
func portHolder(addr string) string {
	_, p, err := net.SplitHostPort(addr)
	port, perr := strconv.ParseUint(p, 10, 16)
	if err != nil || perr != nil || port == 0 {
		return ""
	}
	inodes := listeningInodes("/proc/net/tcp", port)
	for k := range listeningInodes("/proc/net/tcp6", port) {
		inodes[k] = true
	}
	if len(inodes) == 0 {
		return ""
	}
	return socketOwner(inodes)
}

// listeningInodes returns the inodes of the listening sockets on port in
// one /proc/net table.
func listeningInodes(table string, port uint64) map[string]bool {
	found := map[string]bool{}
	f, err := os.Open(table)
	if err != nil {
		return found
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != tcpListen {
			continue
		}
		_, hexPort, ok := strings.Cut(fields[1], ":")
		if n, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && n == port && fields[9] != "0" {
			found[fields[9]] = true
		}
	}
	return found
}

// socketOwner finds the process one of whose descriptors is a socket in
// inodes.
func socketOwner(inodes map[string]bool) string {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range procs {
		fds, err := os.ReadDir(filepath.Join(dir, "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(dir, "fd", fd.Name()))
			inode, ok := strings.CutPrefix(link, "socket:[")
			if err == nil && ok && inodes[strings.TrimSuffix(inode, "]")] {
				return describeProcess(dir)
			}
		}
	}
	return ""
}

// describeProcess is "process PID (NAME)" for a /proc/PID directory.
func describeProcess(dir string) string {
	pid := filepath.Base(dir)
	comm, err := os.ReadFile(filepath.Join(dir, "comm"))
	name := strings.TrimSpace(string(comm))
	if err != nil || name == "" {
		return "process " + pid
	}
	return fmt.Sprintf("process %s (%s)", pid, name)
}
