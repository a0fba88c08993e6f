package engine

// Tables reports how many questions and answers c holds (tests only).
func (c *Conn) Tables() (questions, answers int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.questions.byID), len(c.answers)
}
