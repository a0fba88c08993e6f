// Package privacy finds secret-shaped strings — cloud provider keys, Git
// host and package registry tokens, AI provider keys, chat webhooks,
// private key blocks, JWTs, sharevat's own svt1_ tokens, credentials in
// URLs and key=value assignments — in op bodies, and redacts them. It is
// the privacy guard of docs/design.md §5: the append engine
// (store/apply) runs it over each op body under the share's policy.
//
// # What is scanned
//
// Scan and Redact take a JSON body (every standard op kind's body is
// JSON) and scan the text of each JSON string, object keys included,
// after decoding its escapes: a private key block inside a JSON string,
// written with \n escapes, is one block of text to the scanner, and a
// secret written with \/ or \u escapes is still found. A string that is
// the value of an object member is also scanned together with its key
// ("AWS_SECRET_ACCESS_KEY" then the value), so the rules that need a key
// name beside the value see it. Numbers, literals and the JSON structure
// are not scanned. ScanText and RedactText scan plain text instead.
//
// # Redaction
//
// Each match is replaced by [REDACTED:<rule id>], which holds no quote,
// backslash or control character, so a valid JSON body stays valid JSON:
// the replacement covers whole escape sequences, and everything outside
// the matches keeps its bytes. Rules that need context (a key name, an
// Authorization scheme, a URL's user) replace only the secret, not the
// context. Redacting a redacted body changes nothing.
//
// # The rules
//
// Rules lists the rule set: each rule has a stable id and a description.
// They are prefix-anchored, length- and charset-checked patterns written
// from the providers' documented token formats; the few generic rules
// (a high-entropy value assigned to a secret-sounding name, an
// Authorization header, a password in a URL) need that context and
// extra checks (digits and letters, entropy, no placeholder), so ordinary
// code, hashes, UUIDs, base64 blobs and prose pass untouched. See the
// README's "Privacy guard" for the list and how to report a false
// positive; testdata/ holds the corpus the tests check them against.
//
// # Cost
//
// Work is linear in the body: one pass decodes strings and looks for the
// rules' literal keywords (a 256-entry table by first byte); each
// keyword hit runs its rule's RE2 expression (linear, never
// backtracking) over a bounded window after the hit, and a private key
// block is followed token by token, each byte once. Scan allocates only
// its result, plus a buffer for strings with escapes.
//
// The package does no I/O and imports only the standard library.
package privacy
