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
