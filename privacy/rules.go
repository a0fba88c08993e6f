package privacy

// The rule set. Each rule is written from the token format its provider
// documents (or, for formats no provider documents, the format secret
// scanners agree on); ids are stable. Add a rule here, with planted
// secrets and look-alikes in testdata/, and a line in docs/guide.md's
// "Privacy guard".
//
// The order matters only for ties: when matches of two rules overlap,
// the union is redacted under the id of the specific (non-generic) rule
// whose match is longest.
var rules = compile([]*rule{
	// Cloud providers.
	{Rule: Rule{"aws-access-key-id", "AWS access key id: AKIA (long-term), ASIA (temporary), ABIA, ACCA or A3T… and 16 base32 characters"},
		keywords: []string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"},
		pattern:  awsKeyID, left: alnum, right: alnum,
		// The secret access key given right after its key id, unnamed
		// ("AKIA… with secret …", "AKIA…,…" in a CSV, two JSON strings).
		pair: &rule{Rule: Rule{ID: "aws-secret-access-key"},
			pattern: awsKeyID + awsPairGap + `([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
			group:   1, left: alnum, ok: genericValue}},
	{Rule: Rule{"aws-secret-access-key", "AWS secret access key: 40 base64 characters assigned to a name such as aws_secret_access_key, SecretAccessKey or AWS_SECRET_KEY"},
		keywords: []string{"secret_access_key", "secret-access-key", "secretaccesskey", "aws_secret_key", "aws-secret-key", "awssecretkey"},
		fold:     true, assign: true,
		pattern: `(?i:(?:aws[_-]?)?secret[_-]?(?:access[_-]?)?key)` + sep + `([A-Za-z0-9/+]{40})`,
		group:   1, right: base64Chars, ok: notPlaceholder(1)},
	{Rule: Rule{"aws-session-token", "AWS temporary session token (IQoJb3JpZ2lu… or FwoGZXIvYXdz…, 100 or more base64 characters)"},
		keywords: []string{"IQoJb3JpZ2lu", "FwoGZXIvYXdz"},
		pattern:  `(?:IQoJb3JpZ2lu|FwoGZXIvYXdz)[A-Za-z0-9/+=]{88,}`, window: 4096, left: chars("A-Za-z0-9+/"), right: base64Chars, long: true},
	{Rule: Rule{"gcp-api-key", "Google Cloud / Firebase / Gemini API key: AIza and 35 characters"},
		keywords: []string{"AIza"},
		pattern:  `AIza[0-9A-Za-z_-]{35}`, left: alnum, right: wordDash},
	{Rule: Rule{"gcp-oauth-client-secret", "Google OAuth client secret: GOCSPX- and 28 characters"},
		keywords: []string{"GOCSPX-"},
		pattern:  `GOCSPX-[0-9A-Za-z_-]{28}`, left: alnum, right: wordDash},
	{Rule: Rule{"gcp-oauth-access-token", "Google OAuth access token: ya29. and 30 or more characters"},
		keywords: []string{"ya29."},
		pattern:  `ya29\.[0-9A-Za-z_-]{30,}`, window: 4096, left: alnum, right: wordDash, long: true},
	{Rule: Rule{"azure-storage-account-key", "Azure storage account key: the 88-character AccountKey= of a connection string"},
		keywords: []string{"accountkey="}, fold: true,
		pattern: `(?i:accountkey)=([A-Za-z0-9+/]{86}==)`, group: 1, left: alnum, right: base64Chars},
	{Rule: Rule{"azure-shared-access-key", "Azure Service Bus / Event Hubs / IoT Hub key: SharedAccessKey= of a connection string"},
		keywords: []string{"sharedaccesskey="}, fold: true,
		pattern: `(?i:sharedaccesskey)=([A-Za-z0-9+/]{42,86}={0,2})`, group: 1, left: alnum, right: base64Chars},
	{Rule: Rule{"azure-ad-client-secret", "Microsoft Entra ID (Azure AD) client secret: three characters, a digit, Q~ and 31 to 34 characters"},
		keywords: []string{"Q~"}, back: 4,
		pattern: `[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}`, left: chars("A-Za-z0-9_~.-"), right: chars("A-Za-z0-9_~.-")},
	{Rule: Rule{"signed-url-signature", "signature of a pre-signed URL: Azure SAS sig=, X-Amz-Signature=, X-Goog-Signature="},
		keywords: []string{"sig=", "x-amz-signature=", "x-goog-signature="}, fold: true,
		pattern: `(?i:sig|x-amz-signature|x-goog-signature)=((?:[A-Za-z0-9+/]|%2[BbFf]){40,}(?:=|%3[Dd]){0,2}|[0-9a-f]{64,})`,
		group:   1, left: chars("A-Za-z0-9_-"), right: chars("A-Za-z0-9+/%=")},
	{Rule: Rule{"digitalocean-token", "DigitalOcean token: dop_v1_, doo_v1_ or dor_v1_ and 64 hex digits"},
		keywords: []string{"dop_v1_", "doo_v1_", "dor_v1_"},
		pattern:  `do[opr]_v1_[a-f0-9]{64}`, left: alnum, right: alnum},

	// Source hosting and CI.
	{Rule: Rule{"github-pat", "GitHub personal access token (classic): ghp_ and 36 or more characters"},
		keywords: []string{"ghp_"}, pattern: `ghp_[A-Za-z0-9]{36,}`, left: word, right: word},
	{Rule: Rule{"github-oauth-token", "GitHub OAuth access token: gho_ and 36 or more characters"},
		keywords: []string{"gho_"}, pattern: `gho_[A-Za-z0-9]{36,}`, left: word, right: word},
	{Rule: Rule{"github-user-token", "GitHub App user-to-server token: ghu_ and 36 or more characters"},
		keywords: []string{"ghu_"}, pattern: `ghu_[A-Za-z0-9]{36,}`, left: word, right: word},
	{Rule: Rule{"github-server-token", "GitHub App installation or Actions token: ghs_ and 36 or more characters"},
		keywords: []string{"ghs_"}, pattern: `ghs_[A-Za-z0-9]{36,}`, left: word, right: word},
	{Rule: Rule{"github-refresh-token", "GitHub App refresh token: ghr_ and 36 or more characters"},
		keywords: []string{"ghr_"}, pattern: `ghr_[A-Za-z0-9]{36,}`, left: word, right: word},
	{Rule: Rule{"github-fine-grained-pat", "GitHub fine-grained personal access token: github_pat_ and 82 or more characters"},
		keywords: []string{"github_pat_"}, pattern: `github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9_]{59,}`, left: word, right: word},
	{Rule: Rule{"gitlab-pat", "GitLab personal, project or group access token: glpat- and 20 or more characters"},
		keywords: []string{"glpat-"},
		pattern:  `glpat-[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{2}\.[0-9a-z]{7,12})?`, left: alnum, right: wordDash},
	{Rule: Rule{"gitlab-token", "other GitLab tokens: deploy (gldt-), runner (glrt-, GR1348941), trigger (glptt-), feed (glft-), CI job (glcbt-), OAuth (gloas-), SCIM (glsoat-), incoming mail (glimt-), agent (glagent-)"},
		keywords: []string{"gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "gloas-", "glsoat-", "glimt-", "glagent-", "GR1348941"},
		pattern:  `(?:gl(?:dt|rt|ptt|ft|cbt|oas|soat|imt|agent)-|GR1348941)[A-Za-z0-9_-]{20,}`, left: alnum, right: wordDash},
	{Rule: Rule{"hashicorp-vault-token", "HashiCorp Vault service or batch token: hvs. or hvb. and 24 or more characters"},
		keywords: []string{"hvs.", "hvb."}, pattern: `hv[sb]\.[A-Za-z0-9_-]{24,}`, window: 1024, left: alnum, right: wordDash, long: true},
	{Rule: Rule{"terraform-cloud-token", "Terraform Cloud / Enterprise API token: 14 characters, .atlasv1. and 60 to 70 characters"},
		keywords: []string{".atlasv1."}, back: 14,
		pattern: `[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`, left: alnum, right: chars("A-Za-z0-9_=-")},

	// Package registries.
	{Rule: Rule{"npm-token", "npm access token: npm_ and 36 characters"},
		keywords: []string{"npm_"}, pattern: `npm_[A-Za-z0-9]{36}`, left: word, right: word},
	{Rule: Rule{"pypi-token", "PyPI API token: pypi-AgEIcHlwaS5vcmc and 50 or more characters"},
		keywords: []string{"pypi-AgEIcHlwaS5vcmc"},
		pattern:  `pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`, window: 1024, left: alnum, right: wordDash, long: true},
	{Rule: Rule{"docker-hub-token", "Docker Hub personal or organization access token: dckr_pat_ or dckr_oat_ and 27 or more characters"},
		keywords: []string{"dckr_pat_", "dckr_oat_"},
		pattern:  `dckr_[po]at_[A-Za-z0-9_-]{27,}`, window: 256, left: alnum, right: wordDash},

	// AI providers.
	{Rule: Rule{"anthropic-api-key", "Anthropic API, admin or OAuth key: sk-ant-, a kind (api03, admin01, oat01…) and 32 or more characters"},
		keywords: []string{"sk-ant-"},
		pattern:  `sk-ant-[a-z]{2,8}[0-9]{2}-[A-Za-z0-9_-]{32,}`, left: wordDash, right: wordDash},
	{Rule: Rule{"openai-api-key", "OpenAI API key: sk-proj-, sk-svcacct- or sk-admin- keys, keys holding T3BlbkFJ, and the legacy sk- and 48 characters"},
		keywords: []string{"sk-"},
		pattern:  `sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{48})`,
		left:     wordDash, right: wordDash},
	{Rule: Rule{"openrouter-api-key", "OpenRouter API key: sk-or-v1- and 64 hex digits"},
		keywords: []string{"sk-or-v1-"}, pattern: `sk-or-v1-[a-f0-9]{64}`, left: wordDash, right: wordDash},
	{Rule: Rule{"sk-hex-api-key", "API key of the sk- and 32 hex digits form (DeepSeek and other OpenAI-compatible providers)"},
		keywords: []string{"sk-"}, pattern: `sk-[a-f0-9]{32}`, left: wordDash, right: wordDash, ok: hasLetterAndDigit(0)},
	{Rule: Rule{"groq-api-key", "Groq API key: gsk_ and 52 characters"},
		keywords: []string{"gsk_"}, pattern: `gsk_[A-Za-z0-9]{52}`, left: word, right: word},
	{Rule: Rule{"xai-api-key", "xAI API key: xai- and 80 characters"},
		keywords: []string{"xai-"}, pattern: `xai-[A-Za-z0-9]{80}`, left: wordDash, right: wordDash},
	{Rule: Rule{"huggingface-token", "Hugging Face access token: hf_ and 34 letters of both cases"},
		keywords: []string{"hf_"}, pattern: `hf_[A-Za-z]{34}`, left: word, right: word, ok: mixedCase},
	{Rule: Rule{"replicate-token", "Replicate API token: r8_ and 37 characters"},
		keywords: []string{"r8_"}, pattern: `r8_[A-Za-z0-9]{37}`, left: word, right: word, ok: hasLetterAndDigit(0)},

	// Chat, payments, mail and other services.
	{Rule: Rule{"slack-token", "Slack bot, user, app-configuration or refresh token: xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxo-, xoxe- (and xoxe.xoxp-) with numeric and alphanumeric parts"},
		keywords: []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxo-", "xoxe-", "xoxe."},
		pattern:  `(?:xoxe\.)?xox[abeoprs]-[0-9]{1,16}-[0-9A-Za-z-]{10,}`, left: alnum, right: wordDash},
	{Rule: Rule{"slack-app-token", "Slack app-level token: xapp-, a digit and three parts"},
		keywords: []string{"xapp-"}, pattern: `xapp-[0-9]-[A-Z0-9]{6,}-[0-9]{6,}-[A-Za-z0-9]{32,}`, left: alnum, right: wordDash},
	{Rule: Rule{"slack-webhook-url", "Slack incoming webhook or workflow URL: hooks.slack.com/services/T…/B…/… (the path after the host)"},
		keywords: []string{"hooks.slack.com/"},
		pattern:  `hooks\.slack\.com/(?:services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,}|(?:workflows|triggers)/T[A-Z0-9]{6,}/[A-Za-z0-9/]{20,})`,
		right:    alnum},
	{Rule: Rule{"discord-webhook-url", "Discord webhook URL: discord.com/api/webhooks/<id>/<token>"},
		keywords: []string{"discord.com/api/webhooks/", "discordapp.com/api/webhooks/"},
		pattern:  `discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,68}`, right: wordDash},
	{Rule: Rule{"stripe-secret-key", "Stripe secret or restricted key: sk_live_, sk_test_, rk_live_ or rk_test_ and 24 or more characters"},
		keywords: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"},
		pattern:  `[rs]k_(?:live|test)_[0-9A-Za-z]{24,}`, left: alnum, right: word},
	{Rule: Rule{"stripe-webhook-secret", "Stripe webhook signing secret: whsec_ and 32 or more characters"},
		keywords: []string{"whsec_"}, pattern: `whsec_[A-Za-z0-9+/=]{32,}`, left: alnum, right: base64Chars, window: 256},
	{Rule: Rule{"sendgrid-api-key", "SendGrid API key: SG., 22 characters, a dot and 43 characters"},
		keywords: []string{"SG."}, pattern: `SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}`, left: alnum, right: wordDash},
	{Rule: Rule{"shopify-token", "Shopify access, custom app, private app or shared secret: shpat_, shpca_, shppa_ or shpss_ and 32 hex digits"},
		keywords: []string{"shpat_", "shpca_", "shppa_", "shpss_"},
		pattern:  `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`, left: alnum, right: alnum},
	{Rule: Rule{"linear-api-key", "Linear API key: lin_api_ and 40 characters"},
		keywords: []string{"lin_api_"}, pattern: `lin_api_[A-Za-z0-9]{40}`, left: alnum, right: word},
	{Rule: Rule{"postman-api-key", "Postman API key: PMAK-, 24 hex digits, a dash and 34 hex digits"},
		keywords: []string{"PMAK-"}, pattern: `PMAK-[a-f0-9]{24}-[a-f0-9]{34}`, left: alnum, right: alnum},
	{Rule: Rule{"databricks-token", "Databricks personal access token: dapi and 32 hex digits"},
		keywords: []string{"dapi"}, pattern: `dapi[a-f0-9]{32}(?:-[0-9])?`, left: alnum, right: alnum, ok: hasLetterAndDigit(0)},
	{Rule: Rule{"sentry-token", "Sentry organization or user auth token: sntrys_eyJ… or sntryu_ and 64 hex digits"},
		keywords: []string{"sntrys_", "sntryu_"},
		pattern:  `sntrys_eyJ[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64}`, window: 1024, left: alnum, right: chars("A-Za-z0-9+/=_-"), long: true},
	{Rule: Rule{"grafana-token", "Grafana service account token: glsa_, 32 characters, _ and 8 hex digits"},
		keywords: []string{"glsa_"}, pattern: `glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`, left: alnum, right: word},

	// Keys and tokens of any issuer.
	{Rule: Rule{"private-key", "private key block: -----BEGIN … PRIVATE KEY----- (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted, PGP) to its END line, or to where its base64 stops if the END line is missing"},
		keywords: []string{"-----BEGIN"}, find: findPEM}, // and findKeyBody, from the base64 runs (views.go)
	{Rule: Rule{"age-secret-key", "age encryption secret key: AGE-SECRET-KEY-1 and 58 bech32 characters"},
		keywords: []string{"AGE-SECRET-KEY-1"}, pattern: `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`, left: alnum, right: alnum},
	{Rule: Rule{"jwt", "JSON Web Token: three base64url parts, header and payload JSON objects (eyJ…), header naming its alg"},
		keywords: []string{"eyJ"},
		pattern:  `eyJ[A-Za-z0-9_-]{8,}\.ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`, window: 8192, left: wordDash, right: wordDash, long: true, ok: jwtHeader},
	{Rule: Rule{"sharevat-token", "sharevat token (sturdy ref): svt1_, 24 base32 characters, _ and 43 base64url characters"},
		keywords: []string{"svt1_"}, pattern: `svt1_[a-z2-7]{24}_[A-Za-z0-9_-]{43}`, left: word, right: wordDash},

	// Generic: a credential recognised by its context only.
	{Rule: Rule{"cli-password", "password given to a command: --password=…, --password …, --passwd, --passphrase (and --db-password…), mysql -p…, sshpass -p …, PGPASSWORD=…, MYSQL_PWD=…, REDISCLI_AUTH=…"},
		keywords: []string{"-pass", "-pwd", "mysql", "mariadb", "sshpass", "PGPASSWORD=", "MYSQL_PWD=", "REDISCLI_AUTH="}, find: findCLIPassword},
	{Rule: Rule{"url-password", "password in a URL's user information: scheme://user:password@host"},
		keywords: []string{"://"}, generic: true,
		pattern: `://([^:/?#@\s"'\\<>\[\]]*):([^/?#@\s"'\\<>]+)@[A-Za-z0-9\[]`, group: 2, ok: urlPassword},
	{Rule: Rule{"http-basic-auth", "HTTP Basic credentials: Basic and base64 of user:password"},
		keywords: []string{"basic"}, fold: true, generic: true,
		pattern: `(?i:basic)[ \t]+([A-Za-z0-9+/]{6,}={0,2})`, group: 1, left: alnum, right: base64Chars, ok: basicCredentials},
	{Rule: Rule{"bearer-token", "bearer token after Bearer (an Authorization header), 20 or more characters with letters and digits"},
		keywords: []string{"bearer"}, fold: true, generic: true,
		pattern: `(?i:bearer)[ \t]+([A-Za-z0-9._~+/-]{20,}=*)`, window: 1100, group: 1, left: alnum,
		right: chars("A-Za-z0-9._~+/=-"), ok: highEntropy(1)},
	{Rule: Rule{"generic-secret", "a value of 16 or more characters, with letters and digits and high entropy, assigned to a name holding api_key, apikey, secret, token, password or passwd (API_KEY=…, \"client_secret\": \"…\", password: …)"},
		keywords: []string{"api_key", "api-key", "apikey", "secret", "token", "password", "passwd"}, fold: true, assign: true, generic: true,
		pattern: secretName + sep + `([A-Za-z0-9_+/=~-]{16,})`,
		group:   1, right: chars("A-Za-z0-9_+/=~.([-"), ok: genericValue,
		// Where that fails: a value nested below its name or given in an
		// environment list's next member, where that shape follows the
		// name (nestedFollows).
		alt: &rule{Rule: Rule{ID: "generic-secret"}, fold: true, nested: true, generic: true,
			pattern: secretName + `(?:` + nestedSep + `|` + envSep + `)([A-Za-z0-9_+/=~-]{16,})`,
			group:   1, right: chars("A-Za-z0-9_+/=~.([-"), ok: genericValue}},
})

// awsKeyID is an AWS access key id.
const awsKeyID = `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}`

// awsPairGap is what may stand between an access key id and its secret
// when no name says which the secret is: up to three short words
// ("with secret", "and"), separated by blanks, punctuation, quotes and
// JSON escapes (\n, \"), 64 bytes at most.
const awsPairGap = `(?:` + pairSep + `{1,8}[A-Za-z_-]{1,16}){0,3}` + pairSep + `{1,8}`

// pairSep is one separator unit of awsPairGap: a byte that is neither
// base64 nor a backslash, or a JSON escape.
const pairSep = `(?:[^A-Za-z0-9/+\\]|\\[nrt"\\/]?)`

// secretName is the name generic-secret needs before a value.
const secretName = `(?i:api[_-]?key|secret|token|passw(?:or)?d)(?i:[_-]?(?:key|token|secret))?`

// Rules returns the rule set, in the order of docs/guide.md's list.
func Rules() []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		out[i] = r.Rule
	}
	return out
}
