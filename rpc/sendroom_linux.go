package rpc

import (
	"net"
	"syscall"
	"unsafe"
)

// sendRoom reports whether the kernel's send buffer of conn, a socket
// (a TCP connection), has room for a write of n bytes (plus the frame's header)
// at once: its unsent bytes (SIOCOUTQ) plus n stay within a quarter of
// the buffer (SO_SNDBUF; a quarter leaves room for the kernel's own
// accounting). Any other connection (TLS, a pipe), or an error, says
// no: the frame then goes through the writer goroutine.
func sendRoom(conn net.Conn, n int) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	room := false
	_ = rc.Control(func(fd uintptr) {
		var queued int32
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCOUTQ, uintptr(unsafe.Pointer(&queued))); e != 0 {
			return
		}
		buf, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF)
		room = err == nil && int(queued)+n+maxFrameHeader <= buf/4
	})
	return room
}

// maxFrameHeader is the largest WebSocket frame header (a client's,
// with its 64-bit length and mask key).
const maxFrameHeader = 14
