package vat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/server"

	"github.com/sharevat/sharevat/schema"
)

// Every capability the vat hands out is wrapped in a guardHook, because
// go-capnp v3.1.0-alpha.2 dereferences a nil PipelineCaller on a goroutine
// of its own (AnswerQueue.Fulfill, rpc's promisedPipelineCaller) whenever
// a call queued on a pending answer cannot be delivered: an unknown
// method, a call that has already failed, a cancelled call, a null
// capability in the results. Any of those, reached by a peer's pipelined
// calls, would end the process. The guard makes sure that never happens
// in our objects:
//
//   - an unknown method is answered with `unimplemented` through the
//     normal call path (server.HandleUnknownMethod), so a newer client
//     calling a method this vat does not know gets an exception;
//   - Recv and every PipelineRecv below it never return nil: where
//     go-capnp would, the call has already been rejected, and a
//     brokenPipeline stands in so later pipelined calls are rejected too;
//   - a successful answer never carries a null capability in a capability
//     field (guardReturner): a broken capability takes its place and the
//     bug is logged.
//
// The RPC engine (rpc/engine) refuses a pipelined call whose path does not
// lead to a capability field.

// errBrokenPipeline rejects calls pipelined on a call that failed.
var errBrokenPipeline = capnp.Unimplemented("pipelined call on a call that failed or was cancelled")

// guarded returns a client for methods served by impl. impl may implement
// server.Shutdowner.
func guarded(methods []server.Method, impl any, log *slog.Logger) capnp.Client {
	shut, _ := impl.(server.Shutdowner)
	srv := server.New(methods, impl, shut)
	srv.HandleUnknownMethod = unknownMethod
	return capnp.NewClient(&guardHook{srv: srv, log: log})
}

func unknownMethod(m capnp.Method) *server.Method {
	return &server.Method{Method: m, Impl: func(context.Context, *server.Call) error {
		return capnp.Unimplemented(fmt.Sprintf("unimplemented: method @%d of interface %#x is not known to this server", m.MethodID, m.InterfaceID))
	}}
}

// guardHook is a capnp.ClientHook around a server.Server.
type guardHook struct {
	srv *server.Server
	log *slog.Logger
}

func (g *guardHook) Send(ctx context.Context, s capnp.Send) (*capnp.Answer, capnp.ReleaseFunc) {
	return g.srv.Send(ctx, s)
}

func (g *guardHook) Recv(ctx context.Context, r capnp.Recv) capnp.PipelineCaller {
	r.Returner = &guardReturner{Returner: r.Returner, method: r.Method, log: g.log}
	return guardPipeline(g.srv.Recv(ctx, r))
}

func (g *guardHook) Brand() capnp.Brand { return g.srv.Brand() }
func (g *guardHook) Shutdown()          { g.srv.Shutdown() }
func (g *guardHook) String() string     { return "sharevat guarded server" }

// guardPipeline wraps pc so that no PipelineRecv below it returns nil.
func guardPipeline(pc capnp.PipelineCaller) capnp.PipelineCaller {
	if pc == nil {
		return brokenPipeline{}
	}
	return safePipeline{pc}
}

type safePipeline struct{ pc capnp.PipelineCaller }

func (p safePipeline) PipelineSend(ctx context.Context, t []capnp.PipelineOp, s capnp.Send) (*capnp.Answer, capnp.ReleaseFunc) {
	return p.pc.PipelineSend(ctx, t, s)
}

func (p safePipeline) PipelineRecv(ctx context.Context, t []capnp.PipelineOp, r capnp.Recv) capnp.PipelineCaller {
	return guardPipeline(p.pc.PipelineRecv(ctx, t, r))
}

// brokenPipeline stands for the results of a call that was rejected: every
// call pipelined on it is rejected too.
type brokenPipeline struct{}

func (brokenPipeline) PipelineSend(_ context.Context, _ []capnp.PipelineOp, s capnp.Send) (*capnp.Answer, capnp.ReleaseFunc) {
	return capnp.ErrorAnswer(s.Method, errBrokenPipeline), func() {}
}

func (b brokenPipeline) PipelineRecv(_ context.Context, _ []capnp.PipelineOp, r capnp.Recv) capnp.PipelineCaller {
	r.Reject(errBrokenPipeline)
	return b
}

// brokenHook is the capability that replaces a null one in a successful
// answer: every call on it is rejected.
type brokenHook struct{}

func (brokenHook) Send(_ context.Context, s capnp.Send) (*capnp.Answer, capnp.ReleaseFunc) {
	return capnp.ErrorAnswer(s.Method, errNullCapability), func() {}
}

func (brokenHook) Recv(_ context.Context, r capnp.Recv) capnp.PipelineCaller {
	r.Reject(errNullCapability)
	return brokenPipeline{}
}

func (brokenHook) Brand() capnp.Brand { return capnp.Brand{} }
func (brokenHook) Shutdown()          {}
func (brokenHook) String() string     { return "sharevat broken capability" }

var errNullCapability = errors.New("internal: internal error")

// guardReturner checks a successful answer before go-capnp delivers the
// calls queued on it: every capability field must hold a capability.
type guardReturner struct {
	capnp.Returner
	method  capnp.Method
	log     *slog.Logger
	results capnp.Struct
}

func (r *guardReturner) AllocResults(sz capnp.ObjectSize) (capnp.Struct, error) {
	s, err := r.Returner.AllocResults(sz)
	r.results = s
	return s, err
}

func (r *guardReturner) PrepareReturn(e error) {
	if e == nil {
		r.fillNullCaps()
	}
	r.Returner.PrepareReturn(e)
}

// fillNullCaps puts a broken capability in every capability field of the
// results that holds none.
func (r *guardReturner) fillNullCaps() {
	key := schema.MethodKey{Interface: r.method.InterfaceID, Method: r.method.MethodID}
	for _, path := range schema.ResultCaps(key) {
		if err := fillPath(r.results, path); err != nil {
			r.log.Error("sharevat/vat: answer without a capability in a capability field (a bug); it was replaced by a broken one",
				"method", r.method.String(), "err", err)
		}
	}
}

// fillPath follows path (pointer offsets) from s; if the capability at its
// end is missing, it stores a broken one there and returns an error.
func fillPath(s capnp.Struct, path []uint16) error {
	for i, off := range path {
		p, err := s.Ptr(off)
		if err != nil {
			return err
		}
		if i < len(path)-1 {
			if s = p.Struct(); !s.IsValid() {
				return nil // no enclosing struct: nothing to pipeline on
			}
			continue
		}
		if p.Interface().Client().IsValid() {
			return nil
		}
		if !s.IsValid() {
			return nil
		}
		msg := s.Message()
		id := msg.CapTable().Add(capnp.NewClient(brokenHook{}))
		if err := s.SetPtr(off, capnp.NewInterface(s.Segment(), id).ToPtr()); err != nil {
			return err
		}
		return fmt.Errorf("capability field at pointer %d was null", off)
	}
	return nil
}
