package opencodetest

import (
	"encoding/json"
	"reflect"
	"sort"
)

// Missing lists the keys (ItemKey form) of what e holds locally that
// items (what a share server kept, by key) lacks: the session, each
// message and each part. It is what opencode never sent, or sent and
// the server did not keep.
func Missing(e Export, items map[string]Item) []string {
	var missing []string
	for _, k := range Keys(e) {
		if _, ok := items[k]; !ok {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	return missing
}

// Keys lists the ItemKey form of everything e holds: "session", each
// "message/{id}" and each "part/{messageID}/{id}".
func Keys(e Export) []string {
	var keys []string
	if id, _ := e.Info["id"].(string); id != "" {
		keys = append(keys, "session")
	}
	for _, m := range e.Messages {
		id, _ := m.Info["id"].(string)
		keys = append(keys, "message/"+id)
		for _, p := range m.Parts {
			pid, _ := p["id"].(string)
			keys = append(keys, "part/"+id+"/"+pid)
		}
	}
	return keys
}

// Extra lists the session, message and part keys of items that e does
// not hold (ItemKey form): what a share server has that an imported or
// exported session lacks.
func Extra(e Export, items map[string]Item) []string {
	have := map[string]bool{}
	for _, k := range Keys(e) {
		have[k] = true
	}
	var extra []string
	for k, it := range items {
		if (it.Type == "session" || it.Type == "message" || it.Type == "part") && !have[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	return extra
}

// Objects maps each key of Keys(e) to its object as `opencode export`
// shows it (the session's info, a message's info, a part).
func Objects(e Export) map[string]map[string]any {
	out := map[string]map[string]any{}
	if id, _ := e.Info["id"].(string); id != "" {
		out["session"] = e.Info
	}
	for _, m := range e.Messages {
		id, _ := m.Info["id"].(string)
		out["message/"+id] = m.Info
		for _, p := range m.Parts {
			pid, _ := p["id"].(string)
			out["part/"+id+"/"+pid] = p
		}
	}
	return out
}

// Comparison is how a share server's items stand against `opencode
// export`: of the export's session, messages and parts, how many the
// server holds as exported (Same), holds in an earlier version
// (Stale: opencode never sent the last change), or lacks (Missing:
// opencode never sent it).
type Comparison struct {
	Total   int
	Same    []string
	Stale   []string
	Missing []string
}

// Compare compares items (by ItemKey) with e.
func Compare(e Export, items map[string]Item) Comparison {
	var c Comparison
	objs := Objects(e)
	for _, k := range Keys(e) {
		c.Total++
		it, ok := items[k]
		if !ok {
			c.Missing = append(c.Missing, k)
			continue
		}
		var got map[string]any
		if json.Unmarshal(it.Data, &got) == nil && reflect.DeepEqual(got, objs[k]) {
			c.Same = append(c.Same, k)
		} else {
			c.Stale = append(c.Stale, k)
		}
	}
	return c
}
