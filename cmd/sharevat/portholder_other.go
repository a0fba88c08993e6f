//go:build !linux

package main

// portHolder cannot name the process holding a port on this system.
func portHolder(string) string { return "" }
