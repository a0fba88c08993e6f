package sharevat

// ShareID names a share. It is public: it appears in listings and the
// audit log.
type ShareID string

// GrantID names a grant. It is the public half of a token, never secret.
type GrantID string

// Cursor is an op's 1-based position in its share's log. Cursor 0 means
// "before the first op".
type Cursor uint64

// Epoch is a share's revocation counter. A grant is valid only while its
// epoch equals its share's. Epochs start at 1.
type Epoch uint64
