package wire

import (
	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// SetStateCursor fills dst with c.
func SetStateCursor(dst schema.StateCursor, c sharevat.StateCursor) error {
	var e errs
	e.do(dst.SetKind(c.Kind))
	e.do(dst.SetKey(c.Key))
	dst.SetCursor(uint64(c.Cursor))
	return e.err
}

// ReadStateCursor decodes a state cursor; an absent one is the start.
func ReadStateCursor(src schema.StateCursor) (sharevat.StateCursor, error) {
	var e errs
	c := sharevat.StateCursor{Kind: e.text(src.Kind), Key: e.text(src.Key), Cursor: sharevat.Cursor(src.Cursor())}
	return c, invalid("state cursor", e.err)
}

// StateOrder translates a wire order; false for one this version does not
// know.
func StateOrder(o schema.StateOrder) (sharevat.StateOrder, bool) {
	switch o {
	case schema.StateOrder_byKey:
		return sharevat.ByKey, true
	case schema.StateOrder_byChange:
		return sharevat.ByChange, true
	}
	return 0, false
}

// SetStateOrder is the wire form of o.
func SetStateOrder(o sharevat.StateOrder) schema.StateOrder {
	if o == sharevat.ByChange {
		return schema.StateOrder_byChange
	}
	return schema.StateOrder_byKey
}
