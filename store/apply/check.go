package apply

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/sharevat/sharevat"
)

// CheckOp runs the checks of one op that need no state — its id's form
// (check 0), and its limits and well-formedness (check 5) as if it were
// alone in a batch — and returns the reason and message a server with
// limits lim would answer, or ReasonNone. A client uses it to refuse, in
// the server's words, an op it could never deliver.
func CheckOp(op *sharevat.Op, lim sharevat.Limits) (sharevat.Reason, string) {
	if msg := checkOpID(op.OpID, lim); msg != "" {
		return sharevat.ReasonInvalid, msg
	}
	reason, msg := checkOp(op, lim, "")
	if reason == sharevat.ReasonNone {
		if n := op.Size(); n > lim.MaxBatchBytes {
			return sharevat.ReasonTooLarge, fmt.Sprintf("op is %d bytes; limit is %d per batch", n, lim.MaxBatchBytes)
		}
	}
	return reason, msg
}

// checkOpID runs check 0: the op id's form. It returns why the id is
// malformed, or "".
func checkOpID(id string, lim sharevat.Limits) string {
	switch {
	case id == "":
		return "op id is empty"
	case len(id) > lim.MaxOpIDLen:
		return fmt.Sprintf("op id is %d bytes; limit is %d", len(id), lim.MaxOpIDLen)
	case !utf8.ValidString(id):
		return "op id is not valid UTF-8"
	}
	return ""
}

// checkBatch returns the message for a batch over its limits, or "". The
// batch-level limits are reported on each op at check 5.
func checkBatch(b *sharevat.Batch, lim sharevat.Limits) string {
	if len(b.Ops) > lim.MaxOpsPerBatch {
		return fmt.Sprintf("batch has %d ops; limit is %d", len(b.Ops), lim.MaxOpsPerBatch)
	}
	if n := b.Size(); n > lim.MaxBatchBytes {
		return fmt.Sprintf("batch is %d bytes; limit is %d", n, lim.MaxBatchBytes)
	}
	if len(b.BatchID) > lim.MaxOpIDLen {
		return fmt.Sprintf("batch id is %d bytes; limit is %d", len(b.BatchID), lim.MaxOpIDLen)
	}
	return ""
}

// checkOp runs check 5: limits and well-formedness.
func checkOp(op *sharevat.Op, lim sharevat.Limits, batchProblem string) (sharevat.Reason, string) {
	switch {
	case batchProblem != "":
		return sharevat.ReasonTooLarge, batchProblem
	case len(op.Body) > lim.MaxBodyBytes:
		return sharevat.ReasonTooLarge, fmt.Sprintf("body is %d bytes; limit is %d", len(op.Body), lim.MaxBodyBytes)
	case len(op.Key) > lim.MaxKeyLen:
		return sharevat.ReasonTooLarge, fmt.Sprintf("key is %d bytes; limit is %d", len(op.Key), lim.MaxKeyLen)
	case len(op.DependsOn) > lim.MaxDependsOn:
		return sharevat.ReasonTooLarge, fmt.Sprintf("op has %d dependencies; limit is %d", len(op.DependsOn), lim.MaxDependsOn)
	}
	if msg := CheckShape(op); msg != "" {
		return sharevat.ReasonInvalid, msg
	}
	return sharevat.ReasonNone, ""
}

// CheckShape checks kind, key, delete and body against the kind's rules
// and returns what is wrong, or "": the server's own words, which a
// client may use to refuse an op before it stores or sends it.
func CheckShape(op *sharevat.Op) string {
	switch {
	case !sharevat.IsKnownKind(op.Kind):
		return fmt.Sprintf("unknown kind %q (the kinds are session, message, part, session_diff, model and event)", op.Kind)
	case sharevat.IsStateKind(op.Kind) && op.Key == "":
		return fmt.Sprintf("kind %q needs a key", op.Kind)
	case !sharevat.IsStateKind(op.Kind) && (op.Key != "" || op.Delete):
		return fmt.Sprintf("kind %q takes no key and no delete", op.Kind)
	case !utf8.ValidString(op.Key):
		return "key is not valid UTF-8"
	case op.Delete && len(op.Body) == 0:
		return ""
	case len(op.Body) == 0:
		return fmt.Sprintf("an op of kind %q needs a body (a JSON value) unless it is a delete", op.Kind)
	case !json.Valid(op.Body):
		return fmt.Sprintf("body of kind %q is not valid JSON", op.Kind)
	}
	return ""
}
