package sharevat

import "time"

// The standard op kinds (docs/design.md §5). State kinds carry a key and are
// upserted into the materialized state by (kind, key); KindEvent is
// append-only and carries no key. Bodies of every standard kind are JSON.
const (
	KindSession     = "session"
	KindMessage     = "message"
	KindPart        = "part"
	KindSessionDiff = "session_diff"
	KindModel       = "model"
	KindEvent       = "event"
)

// IsStateKind reports whether kind is upserted into the materialized state.
func IsStateKind(kind string) bool {
	switch kind {
	case KindSession, KindMessage, KindPart, KindSessionDiff, KindModel:
		return true
	}
	return false
}

// IsKnownKind reports whether kind is one of the standard kinds.
func IsKnownKind(kind string) bool { return kind == KindEvent || IsStateKind(kind) }

// Op is one entry a client asks to append.
type Op struct {
	OpID      string   // client-chosen idempotency key, unique within the share forever
	Seq       uint32   // position in its batch
	DependsOn []string // op ids that must already be in the log
	// ExpectedCursor, when set, is the head the client expects just before
	// this op is applied.
	ExpectedCursor *Cursor
	Kind           string
	Key            string // entity id for state kinds; empty for events
	Body           []byte // JSON for the standard kinds
	Delete         bool   // tombstone: removes the (kind, key) entity
}

// Size is the bytes op counts against Limits.MaxBatchBytes: its op id,
// kind, key, body and dependency ids.
func (op *Op) Size() int {
	n := len(op.OpID) + len(op.Kind) + len(op.Key) + len(op.Body)
	for _, d := range op.DependsOn {
		n += len(d)
	}
	return n
}

// Batch is the unit of one append call, committed in one transaction.
type Batch struct {
	BatchID string
	Epoch   Epoch // the epoch the client believes current
	Ops     []Op
}

// Size is the bytes b counts against Limits.MaxBatchBytes: its batch id
// and the Size of each op.
func (b *Batch) Size() int {
	n := len(b.BatchID)
	for i := range b.Ops {
		n += b.Ops[i].Size()
	}
	return n
}

// Entry is an op as stored in the log.
type Entry struct {
	Cursor  Cursor
	OpID    string
	BatchID string
	Seq     uint32
	Kind    string
	Key     string
	Body    []byte
	Delete  bool
	At      time.Time
	// Digest fingerprints the op's content (store/apply.Digest), to tell a
	// true retry from an op id reused for different content. Only stores
	// set it: it does not cross the wire, so it is zero in the entries a
	// client reads.
	Digest [32]byte
}

// Entity is one item of the materialized state: the op of its (kind,
// key) that holds the newest version (store/apply's version rule).
type Entity struct {
	Kind   string
	Key    string
	Body   []byte
	Cursor Cursor
	At     time.Time
}

// OpStatus is the outcome of one op in an append.
type OpStatus uint8

// The op outcomes.
const (
	StatusApplied OpStatus = iota
	StatusDuplicate
	StatusRejected
)

var opStatusNames = [...]string{"applied", "duplicate", "rejected"}

// String returns "applied", "duplicate" or "rejected".
func (s OpStatus) String() string {
	if int(s) < len(opStatusNames) {
		return opStatusNames[s]
	}
	return "unknown"
}

// Reason says why an op was rejected. Like Code, reasons are wire-stable.
type Reason uint8

// The rejection reasons, in the order the server checks them.
const (
	ReasonNone              Reason = iota
	ReasonIDReused                 // op id already applied with different content
	ReasonStaleEpoch               // batch epoch is not the share's epoch
	ReasonMissingDependency        // a dependsOn id is not in the log
	ReasonConflict                 // expectedCursor is not the head
	ReasonInvalid                  // bad kind, key, body or op id
	ReasonTooLarge                 // op or batch over a configured limit
	ReasonSecret                   // a secret-shaped string, under the share's privacy policy reject
)

var reasonNames = [...]string{"", "idReused", "staleEpoch", "missingDependency", "conflict", "invalid", "tooLarge", "secret"}

// String returns the reason's wire name ("staleEpoch"), or "" for none.
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "unknown"
}

// OpResult is the outcome of one op.
type OpResult struct {
	OpID    string
	Status  OpStatus
	Cursor  Cursor // where the op is in the log (applied and duplicate)
	Reason  Reason // for rejected
	Message string // human-readable detail for rejected
}

// Ack answers an append: the head after the batch and one result per op,
// in the batch's order.
type Ack struct {
	Head       Cursor
	Results    []OpResult
	Applied    int
	Duplicates int
	Rejected   int
	Redacted   int // secret-shaped strings the privacy guard replaced in this batch
}

// Count fills Applied, Duplicates and Rejected from Results.
func (a *Ack) Count() {
	a.Applied, a.Duplicates, a.Rejected = 0, 0, 0
	for _, r := range a.Results {
		switch r.Status {
		case StatusApplied:
			a.Applied++
		case StatusDuplicate:
			a.Duplicates++
		default:
			a.Rejected++
		}
	}
}
