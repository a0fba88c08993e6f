package schema

import (
	"fmt"
	"sync"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/schemas"
	std "capnproto.org/go/capnp/v3/std/capnp/schema"
)

// This file answers, from the schema compiled into this package (its
// registered reflection data, not a hand-kept table), which result fields
// of a method hold capabilities (ResultCaps): the vat never answers
// success with a null capability in one of them.

// MethodKey names one method: its interface id and ordinal.
type MethodKey struct {
	Interface uint64
	Method    uint16
}

// capTable is what the schema says about capability fields.
type capTable struct {
	results map[MethodKey]uint64     // method → its result struct's id
	structs map[uint64][]fieldType   // struct id → its pointer fields by offset
	caps    map[MethodKey][][]uint16 // method → paths to its results' capabilities
}

// fieldType is one pointer field: a capability, a struct, or other data.
type fieldType struct {
	offset uint16
	iface  uint64 // non-zero: the field holds a capability of this interface
	strct  uint64 // non-zero: the field holds this struct
}

var (
	tableOnce sync.Once
	table     *capTable
	tableErr  error
)

func loadTable() (*capTable, error) {
	tableOnce.Do(func() { table, tableErr = buildTable(Vault_TypeID) })
	return table, tableErr
}

// buildTable reads the reflection data registered for the file that
// declares id.
func buildTable(id uint64) (*capTable, error) {
	reg := &schemas.Registry{}
	RegisterSchema(reg)
	data, err := reg.Find(id)
	if err != nil {
		return nil, fmt.Errorf("schema: reflection data: %w", err)
	}
	msg, err := capnp.Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("schema: reflection data: %w", err)
	}
	req, err := std.ReadRootCodeGeneratorRequest(msg)
	if err != nil {
		return nil, fmt.Errorf("schema: reflection data: %w", err)
	}
	nodes, err := req.Nodes()
	if err != nil {
		return nil, fmt.Errorf("schema: reflection data: %w", err)
	}
	t := &capTable{results: map[MethodKey]uint64{}, structs: map[uint64][]fieldType{}}
	groups := map[uint64][]uint64{} // struct id → its group fields' struct ids
	for i := range nodes.Len() {
		if err := t.addNode(nodes.At(i), groups); err != nil {
			return nil, err
		}
	}
	t.flattenGroups(groups)
	t.caps = make(map[MethodKey][][]uint16, len(t.results))
	for m, strct := range t.results {
		if paths := t.capPaths(strct, nil, 0); len(paths) > 0 {
			t.caps[m] = paths
		}
	}
	return t, nil
}

func (t *capTable) addNode(n std.Node, groups map[uint64][]uint64) error {
	switch n.Which() {
	case std.Node_Which_interface:
		methods, err := n.Interface().Methods()
		if err != nil {
			return fmt.Errorf("schema: reflection data: %w", err)
		}
		for j := range methods.Len() {
			m := methods.At(j)
			t.results[MethodKey{n.Id(), uint16(j)}] = m.ResultStructType() // methods are listed by ordinal
		}
	case std.Node_Which_structNode:
		fields, err := n.StructNode().Fields()
		if err != nil {
			return fmt.Errorf("schema: reflection data: %w", err)
		}
		for j := range fields.Len() {
			t.addField(n.Id(), fields.At(j), groups)
		}
	}
	return nil
}

// addField records f of struct id if it is a pointer field; a group's
// fields live in its parent's sections, so groups are merged later.
func (t *capTable) addField(id uint64, f std.Field, groups map[uint64][]uint64) {
	if f.Which() == std.Field_Which_group {
		groups[id] = append(groups[id], f.Group().TypeId())
		return
	}
	slot := f.Slot()
	typ, err := slot.Type()
	if err != nil {
		return
	}
	ft := fieldType{offset: uint16(slot.Offset())}
	switch typ.Which() {
	case std.Type_Which_interface:
		ft.iface = typ.Interface().TypeId()
	case std.Type_Which_structType:
		ft.strct = typ.StructType().TypeId()
	case std.Type_Which_text, std.Type_Which_data, std.Type_Which_list, std.Type_Which_anyPointer:
	default:
		return // a data field: not reachable by a pipeline transform
	}
	t.structs[id] = append(t.structs[id], ft)
}

// flattenGroups adds every group's pointer fields to the struct that
// contains it (transitively).
func (t *capTable) flattenGroups(groups map[uint64][]uint64) {
	var collect func(id uint64) []fieldType
	collect = func(id uint64) []fieldType {
		fs := t.structs[id]
		for _, g := range groups[id] {
			fs = append(fs, collect(g)...)
		}
		return fs
	}
	for id := range groups {
		t.structs[id] = collect(id)
	}
}

// ResultCaps returns the pointer-field paths of every capability field in
// the results of m (nested structs included), or nil for an unknown
// method or one that returns no capability.
// The caller must not modify the result: it is computed once, when the
// table is built.
func ResultCaps(m MethodKey) [][]uint16 {
	t, err := loadTable()
	if err != nil {
		return nil
	}
	return t.caps[m]
}

func (t *capTable) capPaths(strct uint64, prefix []uint16, depth int) [][]uint16 {
	if depth > 8 { // the schema has no deep nesting; stop a recursive type
		return nil
	}
	var paths [][]uint16
	for _, f := range t.structs[strct] {
		path := append(append([]uint16(nil), prefix...), f.offset)
		switch {
		case f.iface != 0:
			paths = append(paths, path)
		case f.strct != 0:
			paths = append(paths, t.capPaths(f.strct, path, depth+1)...)
		}
	}
	return paths
}
