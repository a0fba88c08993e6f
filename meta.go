package sharevat

import "time"

// Status is a session's activity state.
type Status uint8

// The session states. StatusUnset means "not given" in an update.
const (
	StatusUnset Status = iota
	StatusIdle
	StatusBusy
	StatusError
)

var statusNames = [...]string{"", "idle", "busy", "error"}

// String returns "idle", "busy", "error", or "" when unset.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "unknown"
}

// ParseStatus parses "idle", "busy" or "error".
func ParseStatus(text string) (Status, error) {
	for i, n := range statusNames {
		if n == text && i > 0 {
			return Status(i), nil
		}
	}
	return StatusUnset, Errorf(EInvalid, "unknown status %q (want idle, busy or error)", text)
}

// Meta is a share's session metadata.
type Meta struct {
	Title     string
	ProjectID string
	Directory string
	Version   string
	Status    Status
	CreatedAt time.Time // set by the server
	// UpdatedAt is set by the server: by every metadata update, and by
	// every append that applies at least one op (the store moves it to
	// the append's time), so "newest update first" lists the shares
	// active last first, as opencode's session.time.updated moves on new
	// messages.
	UpdatedAt time.Time
	// StatusAt is when Status last changed: set by the store when an
	// update changes the status (UpdateMeta); CreateShare and Fork store
	// the value they are given. Zero: never set.
	StatusAt time.Time
}

// MetaPatch is a partial metadata update: nil fields are left unchanged.
type MetaPatch struct {
	Title     *string
	ProjectID *string
	Directory *string
	Version   *string
	Status    Status // StatusUnset leaves it unchanged
}

// MaxMetaField is the longest accepted metadata text field, in bytes.
const MaxMetaField = 4096

// Apply returns m with the patch applied and UpdatedAt set to now.
func (p MetaPatch) Apply(m Meta, now time.Time) (Meta, error) {
	for _, f := range []struct {
		dst *string
		src *string
	}{{&m.Title, p.Title}, {&m.ProjectID, p.ProjectID}, {&m.Directory, p.Directory}, {&m.Version, p.Version}} {
		if f.src == nil {
			continue
		}
		if len(*f.src) > MaxMetaField {
			return m, Errorf(ETooLarge, "metadata field longer than %d bytes", MaxMetaField)
		}
		*f.dst = *f.src
	}
	if p.Status > StatusError {
		return m, Errorf(EInvalid, "unknown status %d", p.Status)
	}
	if p.Status != StatusUnset {
		m.Status = p.Status
	}
	m.UpdatedAt = now
	return m, nil
}

// Share is the stored record of a share.
type Share struct {
	ID        ShareID
	Meta      Meta
	Epoch     Epoch
	Head      Cursor
	Deleted   bool
	DeletedAt time.Time // when Store.Delete deleted it; zero while live
	OwnerRoot GrantID   // the grant minted at creation (or at the latest epoch bump)
	// ParentID is the share this one was forked from ("" for none) and
	// ForkCursor the parent's cursor it was forked at. Both are set by
	// Store.Fork and stay after the parent is deleted.
	ParentID   ShareID
	ForkCursor Cursor
	// Earliest is the earliest cursor still readable: 1 unless a
	// compaction dropped the ops before it (Store.Compact); at most
	// Head+1. Set by the store; ignored on input.
	Earliest Cursor
	// Settings are the share's privacy policy and retention
	// (Store.PutSettings); the zero value redacts and retains everything.
	Settings Settings
	// MaxBytes is the op bytes the share may hold (Op.Size of each op
	// its log holds), a quota fixed when it is created — by the creation
	// token's bytes per share — and taken by its forks; 0: no limit. The
	// vat enforces it on every append, whatever the door.
	MaxBytes int64
}
