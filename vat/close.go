package vat

import (
	"context"
	"errors"
	"sync"
)

// SyncAudit returns once every audit record queued so far is written.
// Redeem records are written asynchronously; tests and tools that read
// the audit log right after a redeem call this first.
func (v *Vat) SyncAudit() { v.auditor.sync() }

// Close stops the retention job and the change follower, ends every live
// subscription and waits for their goroutines, then waits for queued
// audit records to be written — or for ctx. It does not close the store or any connection;
// call it after the transport has shut down and before closing the store.
func (v *Vat) Close(ctx context.Context) error {
	return errors.Join(v.retention.stop(ctx), v.stopChanges(ctx), v.closeSubscriptions(ctx), v.auditor.close(ctx))
}

// waitCtx waits for wg, or for ctx to end.
func waitCtx(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
