package main

import (
	"fmt"

	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/store/outbox"
)

// damagedOps turns the damaged records of an outbox into rows of
// `outbox show`.
func damagedOps(ds []*outbox.DamagedRecordError) []outboxOp {
	ops := make([]outboxOp, 0, len(ds))
	for _, d := range ds {
		op := outboxOp{OpID: d.OpID, State: "damaged", Record: d.Seq,
			Message: fmt.Sprintf("%s record %d: %s", d.State, d.Seq, d.Detail)}
		if d.Index {
			op.Message = "op id index entry: " + d.Detail
		}
		ops = append(ops, op)
	}
	return ops
}

// discardDamaged drops exactly the damaged records of one outbox.
func discardDamaged(env *Env, of *outboxFlags, yes bool) error {
	info, err := of.read(env)
	if err != nil {
		return err
	}
	path := info.Path
	if info.Damaged == 0 {
		_, err := fmt.Fprintf(env.Stderr, "no damaged records in %s\n", path)
		return err
	}
	if err := confirm(env, yes, fmt.Sprintf("discard %d damaged record(s) of outbox %s?", info.Damaged, path)); err != nil {
		return err
	}
	db, err := outbox.Open(path, outbox.Options{LockTimeout: of.lockWait})
	if err != nil {
		return err
	}
	defer db.Close()
	gone, err := db.DiscardDamaged()
	if err != nil {
		return err
	}
	for _, d := range gone {
		fmt.Fprintf(env.Stderr, "discarded %s\n", printable(damagedOps([]*outbox.DamagedRecordError{d})[0].Message+idNote(d)))
	}
	fmt.Fprintf(env.Stderr, "discarded %d damaged record(s) from %s; the ops they held are not sent (append them again if they are still wanted)\n", len(gone), path)
	return nil
}

// idNote is the op id of a damaged record, as far as it can be read.
func idNote(d *outbox.DamagedRecordError) string {
	if d.OpID == "" {
		return ""
	}
	return fmt.Sprintf(" (op id %q as stored)", d.OpID)
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// damagedLeft reports the damaged records a flush left in ob (never
// sent), with the way out, or nil.
func damagedLeft(ob *client.Outbox) error {
	st, err := ob.Status()
	if err != nil || st.Damaged == 0 {
		return err
	}
	return fmt.Errorf("%d damaged record(s) in the outbox %s were not sent (they fail their checksum): "+
		"'sharevat outbox show' lists them, 'sharevat outbox discard --damaged' drops them", st.Damaged, ob.Path())
}
