package opencodetest

import "sort"

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
