// Package privacy finds secret-shaped strings — cloud provider keys, Git
// host and package registry tokens, AI provider keys, chat webhooks,
// private key blocks, JWTs, sharevat's own svt1_ tokens, credentials in
// URLs, passwords given to commands and key=value assignments — in op
// bodies, and redacts them. It is
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
// name beside the value see it; so is a string nested below such a key
// ({"password": {"value": …}}, {"api_key": […]}), and the "value" of an
// object whose "name" (or "key") is such a name ({"name": "API_TOKEN",
// "value": …}). The strings that follow a private key's BEGIN line or
// body (or a key block cut in two strings) are redacted line by line
// while they are base64, up to the END line. Each value string is also
// scanned joined to the one before it (join.go): what crosses the
// boundary — a token cut in two strings or array elements — is redacted
// in both. Numbers, literals and the JSON structure are not scanned. ScanText and
// RedactText scan plain text instead.
//
// # Views
//
// The rules also run over views of each text, built only where the text
// holds their shape and only around it (views.go): the text without its
// invisible characters (a zero-width space inside a token), with its
// percent escapes decoded, with its base64 runs that decode to text
// decoded (a .env file in base64; the whole run is redacted), with
// string literals written one after the other joined ("ghp_…" + "…").
// What they find is mapped back to the bytes it came from. A private
// key's base64 body is found without its BEGIN line by how its DER
// encoding starts. What is not covered is listed in docs/guide.md's
// "Privacy guard".
//
// # Redaction
//
// Each match is replaced by [REDACTED:<rule id>], which holds no quote,
// backslash or control character, so a valid JSON body stays valid JSON:
// the replacement covers whole escape sequences, and everything outside
// the matches keeps its bytes. Rules that need context (a key name, an
// Authorization scheme, a URL's user) replace only the secret, not the
// context. Redacting a redacted body changes nothing.
// A rule may have a pair: a secret given unnamed right after its match
// (an AWS secret access key after its key id, in the same string or the
// next), redacted under its own rule id.
//
// # The rules
//
// Rules lists the rule set: each rule has a stable id and a description.
// They are prefix-anchored, length- and charset-checked patterns written
// from the providers' documented token formats; the few generic rules
// (a high-entropy value assigned to a secret-sounding name, an
// Authorization header, a password in a URL) need that context and
// extra checks (digits and letters, entropy, no placeholder), so ordinary
// code, hashes, UUIDs, base64 blobs and prose pass untouched. See
// docs/guide.md's "Privacy guard" for the list and how to report a false
// positive; testdata/ holds the corpus the tests check them against.
//
// # Cost
//
// Work is linear in the body: one pass decodes strings and looks for the
// rules' literal keywords (a 256-entry table by first byte); each
// keyword hit runs its rule's RE2 expression (linear, never
// backtracking) over a bounded window after the hit, and a private key
// block is followed token by token, each byte once. Finding where a view
// applies is a pass per view (SIMD byte search for '%', quotes and
// invisible characters; base64 runs probed 32 bytes ahead), and a view
// holds only the text around where it differs. Scan allocates its
// result and buffers for strings with escapes and for views.
//
// The package does no I/O and imports only the standard library.
package privacy
