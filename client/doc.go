// Package client is the Go client of sharevat: Dial a vat, redeem tokens
// into typed capabilities (Admin, Share, Appender, Reader), and call them.
// Errors from the server come back as *sharevat.Error, so callers can use
// errors.Is(err, sharevat.ErrRevoked) or sharevat.ErrorCode(err).
//
// Every capability a call returns must be released (Release) when no
// longer needed; closing the Conn releases everything.
package client
