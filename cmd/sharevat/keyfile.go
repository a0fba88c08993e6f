package main

import "github.com/sharevat/sharevat/server"

// Files in the data directory.
const (
	dbFile     = server.DBFile
	pepperFile = server.PepperFile // the verifier key; 0600; losing it invalidates every token
	adminFile  = server.AdminFile  // the admin token; 0600
)

// writeSecretFile writes data to a new 0600 file, durably, failing if
// the file exists (server.WriteSecretFile).
func writeSecretFile(path string, data []byte) error { return server.WriteSecretFile(path, data) }
