package capnweb

import (
	"errors"
	"io"
)

// readGrain is the first buffer of a message being read, and the least
// it grows by.
const readGrain = 16 << 10

// errReadMemory is the error of readCharged when the budget cannot take
// the message's next bytes (the budget has closed the session).
var errReadMemory = &protoError{limit: "memory", msg: "session memory budget exceeded"}

// readCharged reads one message from r, charging its buffer to meter as
// it grows, before the bytes arrive: a peer that announces a large frame
// and sends it slowly (or never finishes it) holds only what its budget,
// and the server's pool, admit. It returns the message and the bytes
// charged for it, which the caller releases once it is handled; on error
// nothing stays charged.
func readCharged(r io.Reader, meter *budget) ([]byte, int64, error) {
	buf := make([]byte, 0, readGrain)
	charged := int64(readGrain)
	if meter.Charge(charged) != nil {
		return nil, 0, errReadMemory
	}
	for {
		if len(buf) == cap(buf) {
			more := max(cap(buf)/2, readGrain)
			if meter.Charge(int64(more)) != nil {
				meter.Release(charged)
				return nil, 0, errReadMemory
			}
			charged += int64(more)
			buf = append(make([]byte, 0, cap(buf)+more), buf...)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, charged, nil
		}
		if err != nil {
			meter.Release(charged)
			return nil, 0, err
		}
	}
}
