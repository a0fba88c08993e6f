package bolt

// Internal codecs, exported to the external tests.
var (
	EncodeEntry  = encodeEntry
	DecodeEntry  = decodeEntry
	DecodeEntity = decodeEntity
)

// Crash closes db as a killed process leaves it: the write-ahead log is
// closed without being applied to the data file.
func Crash(db *DB) error {
	if db.wal != nil {
		db.crashWAL()
	}
	return db.bdb.Close()
}

// Pending is how many write-ahead log records the data file does not
// hold yet.
func Pending(db *DB) int {
	if db.wal == nil {
		return 0
	}
	n, _ := db.wal.ov.size()
	return n
}

// FailApply makes every later attempt of db's background applier fail
// with what fault returns, as a full disk would; a nil fault ends that
// and makes one attempt now (the applier would retry on its next tick).
func FailApply(db *DB, fault func() error) {
	db.wal.applyMu.Lock()
	db.wal.applyFault = fault
	db.wal.applyMu.Unlock()
	if fault == nil {
		db.wal.notice.ended(db.applyOnce())
	}
}

// PendingBytes is how many bytes of write-ahead log records the data
// file does not hold yet.
func PendingBytes(db *DB) int64 {
	_, n := db.wal.ov.size()
	return n
}
