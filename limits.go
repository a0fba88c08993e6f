package sharevat

// Limits bound what one append may carry. Ops over a limit are rejected
// with ReasonTooLarge (or ReasonInvalid for malformed ids); they never
// crash the server or drop the connection.
type Limits struct {
	MaxBodyBytes   int // largest op body
	MaxOpsPerBatch int // most ops in one batch
	MaxBatchBytes  int // largest sum of op sizes in one batch
	MaxOpIDLen     int // longest op id (and batch id), in bytes
	MaxKeyLen      int // longest entity key, in bytes
	MaxDependsOn   int // most dependencies of one op
}

// DefaultLimits are the limits a server uses unless configured otherwise.
func DefaultLimits() Limits {
	return Limits{
		MaxBodyBytes:   1 << 20,
		MaxOpsPerBatch: 1000,
		MaxBatchBytes:  8 << 20,
		MaxOpIDLen:     128,
		MaxKeyLen:      512,
		MaxDependsOn:   64,
	}
}

// HardMaxBatchBytes is the largest MaxBatchBytes a server accepts; the
// transport's frame limit is sized from it.
const HardMaxBatchBytes = 64 << 20

// Validate rejects limits that are zero, negative or absurd.
func (l Limits) Validate() error {
	for _, f := range []struct {
		name     string
		v, upper int
	}{
		{"max body bytes", l.MaxBodyBytes, HardMaxBatchBytes},
		{"max ops per batch", l.MaxOpsPerBatch, 100_000},
		{"max batch bytes", l.MaxBatchBytes, HardMaxBatchBytes},
		{"max op id length", l.MaxOpIDLen, 4096},
		{"max key length", l.MaxKeyLen, 16 << 10}, // bbolt keys are at most 32 KiB
		{"max depends on", l.MaxDependsOn, 10_000},
	} {
		if f.v < 1 || f.v > f.upper {
			return Errorf(EInvalid, "%s is %d; want 1 to %d", f.name, f.v, f.upper)
		}
	}
	if l.MaxBodyBytes > l.MaxBatchBytes {
		return Errorf(EInvalid, "max body bytes (%d) exceeds max batch bytes (%d)", l.MaxBodyBytes, l.MaxBatchBytes)
	}
	return nil
}
