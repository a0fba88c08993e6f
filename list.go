package sharevat

import "time"

// Listing limits of Store.ListShares.
const (
	DefaultListLimit = 100  // shares per page when ListFilter.Limit is 0
	MaxListLimit     = 1000 // a larger ListFilter.Limit is lowered to this
)

// ListFilter selects and pages the shares Store.ListShares returns.
// Every set field must match; "" and StatusUnset match anything.
type ListFilter struct {
	ProjectID   string
	Directory   string
	Status      Status
	ParentID    ShareID
	WithDeleted bool // include deleted shares
	// Limit is the most shares of one page: 0 means DefaultListLimit,
	// more than MaxListLimit means MaxListLimit.
	Limit int
	// PageToken is the previous page's next-page token, "" for the first
	// page. It is opaque, and stays valid: a page resumes after the last
	// share of the page before, in the order the listing had then.
	PageToken string
}

// ShareStatus is the status of one share (Store.Statuses).
type ShareStatus struct {
	ID       ShareID
	Title    string
	Status   Status
	StatusAt time.Time
}
