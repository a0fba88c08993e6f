package wire

import (
	"math"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// Nanos encodes t as Unix nanoseconds; the zero time is 0.
func Nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// Time decodes Unix nanoseconds; 0 is the zero time.
func Time(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// SetScope writes s into dst.
func SetScope(dst schema.Scope, s sharevat.Scope) {
	dst.SetRead(s.Has(sharevat.ScopeRead))
	dst.SetAppend(s.Has(sharevat.ScopeAppend))
	dst.SetDelegate(s.Has(sharevat.ScopeDelegate))
	dst.SetAdmin(s.Has(sharevat.ScopeAdmin))
}

// ReadScope decodes a scope struct.
func ReadScope(src schema.Scope) sharevat.Scope {
	var s sharevat.Scope
	for _, r := range []struct {
		on  bool
		bit sharevat.Scope
	}{
		{src.Read(), sharevat.ScopeRead}, {src.Append(), sharevat.ScopeAppend},
		{src.Delegate(), sharevat.ScopeDelegate}, {src.Admin(), sharevat.ScopeAdmin},
	} {
		if r.on {
			s |= r.bit
		}
	}
	return s
}

// errs collects the first error of a run of setter calls, so encoders read
// as a flat list of fields.
type errs struct{ err error }

func (e *errs) do(err error) {
	if e.err == nil {
		e.err = err
	}
}

// text reads a text field, remembering the first error.
func (e *errs) text(get func() (string, error)) string {
	s, err := get()
	e.do(err)
	return s
}

// data reads a data field as a copy, remembering the first error.
func (e *errs) data(get func() ([]byte, error)) []byte {
	b, err := get()
	e.do(err)
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// invalid wraps a decoding failure as an EInvalid domain error.
func invalid(what string, err error) error {
	if err == nil {
		return nil
	}
	return sharevat.Errorf(sharevat.EInvalid, "malformed %s", what)
}

// SetLimits writes lim into dst.
func SetLimits(dst schema.Limits, lim sharevat.Limits) {
	dst.SetMaxBodyBytes(clampU32(lim.MaxBodyBytes))
	dst.SetMaxOpsPerBatch(clampU32(lim.MaxOpsPerBatch))
	dst.SetMaxBatchBytes(clampU32(lim.MaxBatchBytes))
	dst.SetMaxOpIdLen(clampU32(lim.MaxOpIDLen))
	dst.SetMaxKeyLen(clampU32(lim.MaxKeyLen))
	dst.SetMaxDependsOn(clampU32(lim.MaxDependsOn))
}

// ReadLimits reads the limits a server sent.
func ReadLimits(src schema.Limits) sharevat.Limits {
	return sharevat.Limits{
		MaxBodyBytes: int(src.MaxBodyBytes()), MaxOpsPerBatch: int(src.MaxOpsPerBatch()),
		MaxBatchBytes: int(src.MaxBatchBytes()), MaxOpIDLen: int(src.MaxOpIdLen()),
		MaxKeyLen: int(src.MaxKeyLen()), MaxDependsOn: int(src.MaxDependsOn()),
	}
}

// clampU32 fits a non-negative int into a UInt32 field.
func clampU32(n int) uint32 {
	return uint32(min(max(n, 0), math.MaxUint32))
}
