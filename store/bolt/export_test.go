package bolt

// Internal codecs, exported to the external tests.
var (
	EncodeEntry  = encodeEntry
	DecodeEntry  = decodeEntry
	DecodeEntity = decodeEntity
)
