//go:build !linux

package rpc

import "net"

// sendRoom says no where the send buffer cannot be asked: every frame
// goes through the writer goroutine.
func sendRoom(net.Conn, int) bool { return false }
