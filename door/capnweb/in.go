package capnweb

import (
	"math"
	"strconv"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// The conversions below read what the peer sent into the domain values
// package wire encodes (or, where the schema is simpler, straight into
// the schema's struct). A missing or undefined field is the schema's
// default; a value of the wrong type is invalid.

// status decodes a Status name; missing is unset.
func (d *dec) status(v capnweb.Value, name string) sharevat.Status {
	s := d.text(v, name)
	if s == "" {
		return sharevat.StatusUnset
	}
	st := schema.StatusFromString(s)
	if st.String() != s {
		d.fail(name, `"unset", "idle", "busy" or "error"`)
	}
	return sharevat.Status(st)
}

// privacy decodes a Privacy name; missing is redact.
func (d *dec) privacy(v capnweb.Value, name string) schema.Privacy {
	s := d.text(v, name)
	if s == "" {
		return schema.Privacy_redact
	}
	p := schema.PrivacyFromString(s)
	if p.String() != s {
		d.fail(name, `"redact", "reject" or "off"`)
	}
	return p
}

// scope decodes a Scope struct.
func (d *dec) scope(v capnweb.Value, name string) sharevat.Scope {
	o := d.object(v, name)
	var s sharevat.Scope
	for _, r := range []struct {
		field string
		bit   sharevat.Scope
	}{{"read", sharevat.ScopeRead}, {"append", sharevat.ScopeAppend}, {"delegate", sharevat.ScopeDelegate}, {"admin", sharevat.ScopeAdmin}} {
		if d.boolean(field(o, r.field), name+"."+r.field) {
			s |= r.bit
		}
	}
	return s
}

// metaPatch decodes a Meta: a text field missing or null is unset, ""
// clears it; the server-set times are ignored.
func (d *dec) metaPatch(v capnweb.Value, name string) sharevat.MetaPatch {
	o := d.object(v, name)
	return sharevat.MetaPatch{
		Title:     d.optText(field(o, "title"), name+".title"),
		ProjectID: d.optText(field(o, "projectId"), name+".projectId"),
		Directory: d.optText(field(o, "directory"), name+".directory"),
		Version:   d.optText(field(o, "version"), name+".version"),
		Status:    d.status(field(o, "status"), name+".status"),
	}
}

// listFilter decodes a ListFilter.
func (d *dec) listFilter(v capnweb.Value, name string) sharevat.ListFilter {
	o := d.object(v, name)
	return sharevat.ListFilter{
		ProjectID:   d.text(field(o, "projectId"), name+".projectId"),
		Directory:   d.text(field(o, "directory"), name+".directory"),
		Status:      d.status(field(o, "status"), name+".status"),
		ParentID:    sharevat.ShareID(d.text(field(o, "parentId"), name+".parentId")),
		Limit:       int(d.u32(field(o, "limit"), name+".limit")),
		PageToken:   d.text(field(o, "pageToken"), name+".pageToken"),
		WithDeleted: d.boolean(field(o, "withDeleted"), name+".withDeleted"),
	}
}

// settings decodes a Settings into dst (the vat checks its ranges).
func (d *dec) settings(v capnweb.Value, name string) func(schema.Settings) {
	o := d.object(v, name)
	p := d.privacy(field(o, "privacy"), name+".privacy")
	ops := d.u64(field(o, "retainOps"), name+".retainOps", math.MaxUint64)
	secs := d.i64(field(o, "retainSeconds"), name+".retainSeconds")
	return func(dst schema.Settings) {
		dst.SetPrivacy(p)
		dst.SetRetainOps(ops)
		dst.SetRetainSeconds(secs)
	}
}

// batch decodes a Batch. More ops than any server accepts is tooLarge.
func (d *dec) batch(v capnweb.Value, name string) *sharevat.Batch {
	o := d.object(v, name)
	b := &sharevat.Batch{
		BatchID: d.text(field(o, "batchId"), name+".batchId"),
		Epoch:   sharevat.Epoch(d.u64(field(o, "epoch"), name+".epoch", math.MaxUint64)),
	}
	ops := d.list(field(o, "ops"), name+".ops")
	if len(ops) > wire.MaxBatchOps {
		if d.err == nil {
			d.err = sharevat.Errorf(sharevat.ETooLarge, "batch has %d ops; no server accepts more than %d", len(ops), wire.MaxBatchOps)
		}
		return b
	}
	b.Ops = make([]sharevat.Op, len(ops))
	for i := 0; i < len(ops) && d.err == nil; i++ {
		b.Ops[i] = d.op(ops[i], name+".ops["+strconv.Itoa(i)+"]")
	}
	return b
}

// op decodes one Op.
func (d *dec) op(v capnweb.Value, name string) sharevat.Op {
	o := d.object(v, name)
	op := sharevat.Op{
		OpID:           d.text(field(o, "opId"), name+".opId"),
		Seq:            d.u32(field(o, "seq"), name+".seq"),
		DependsOn:      d.texts(field(o, "dependsOn"), name+".dependsOn"),
		ExpectedCursor: d.expected(field(o, "expected"), name+".expected"),
		Kind:           d.text(field(o, "kind"), name+".kind"),
		Key:            d.text(field(o, "key"), name+".key"),
		Delete:         d.boolean(field(o, "delete"), name+".delete"),
	}
	body, err := encodeBody(field(o, "body"), d.method+": "+name+".body")
	if err != nil && d.err == nil {
		d.err = err
	}
	op.Body = body
	return op
}

// texts decodes a List(Text).
func (d *dec) texts(v capnweb.Value, name string) []string {
	l := d.list(v, name)
	if len(l) == 0 {
		return nil
	}
	out := make([]string, len(l))
	for i, e := range l {
		if _, ok := e.(string); !ok {
			d.fail(name+"["+strconv.Itoa(i)+"]", "a string")
		}
		out[i] = d.text(e, name)
	}
	return out
}

// expected decodes Op.expected: {cursor: n} or {none: null}; missing is
// none.
func (d *dec) expected(v capnweb.Value, name string) *sharevat.Cursor {
	o := d.object(v, name)
	c, hasCursor := o.Get("cursor")
	_, hasNone := o.Get("none")
	switch {
	case hasCursor && hasNone:
		d.fail(name, "{cursor: n} or {none: null}, not both")
	case hasCursor && c != capnweb.Undefined:
		n := sharevat.Cursor(d.u64(c, name+".cursor", math.MaxUint64))
		if c == nil {
			d.fail(name+".cursor", "an integer")
		}
		return &n
	}
	return nil
}
