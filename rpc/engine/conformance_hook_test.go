package engine

// The conformance suite's one look inside a Conn (hostile_bound_test.go):
// how many entries its tables hold, so that a test can assert that what
// a finished question held is gone.

// TableSizes returns the number of questions, answers and exports the
// connection holds (it keeps no import table: each imported capability
// is its own hook). Test-only.
func (c *Conn) TableSizes() (questions, answers, exports int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.questions.byID), len(c.answers), len(c.exports.byID)
}
