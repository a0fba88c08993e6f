package privacy

import "bytes"

// The cli-password rule: a password given to a command on its command
// line or in the environment variable the command reads it from. Human
// passwords are short and need not look random, so the rule needs the
// command's own syntax instead: a --password flag, mysql's -p glued to
// its value, sshpass -p, PGPASSWORD=.

// passwordFlags are the flag names (after "--" and any "db-" like
// prefix) that take a password.
var passwordFlags = []string{"password", "passwd", "passphrase", "pass", "pwd"}

// passwordEnv are the environment variables commands read a password
// from.
var passwordEnv = []string{"PGPASSWORD=", "MYSQL_PWD=", "REDISCLI_AUTH="}

// findCLIPassword returns the password given at the keyword at start.
func findCLIPassword(t []byte, start int) (int, int, bool) {
	switch c := t[start]; {
	case c == '-':
		return flagPassword(t, start+1)
	case c == 'm':
		return mysqlPassword(t, start)
	case c == 's':
		return sshpassPassword(t, start)
	}
	for _, env := range passwordEnv {
		if bytes.HasPrefix(t[start:], []byte(env)) && (start == 0 || !word.has(t[start-1])) {
			return passwordValue(t, start+len(env), 4, false)
		}
	}
	return 0, 0, false
}

// flagPassword finds --password=V or --password V (and the other names,
// with a prefix: --db-password) whose name ends at start.
func flagPassword(t []byte, start int) (int, int, bool) {
	k := start
	for k > 0 && (t[k-1] >= 'a' && t[k-1] <= 'z' || t[k-1] >= '0' && t[k-1] <= '9' || t[k-1] == '-') {
		k--
	}
	if !bytes.HasPrefix(t[k:start], []byte("--")) || k > 0 && alnum.has(t[k-1]) {
		return 0, 0, false
	}
	for _, f := range passwordFlags {
		e := start + len(f)
		if !bytes.HasPrefix(t[start:], []byte(f)) || e >= len(t) {
			continue
		}
		switch t[e] {
		case '=':
			return passwordValue(t, e+1, 4, false)
		case ' ', '\t':
			return passwordValue(t, e+1, 6, true)
		}
	}
	return 0, 0, false
}

// mysqlPassword finds the value of -p (glued to it) on the command line
// of mysql, mysqldump, mariadb… that starts at start.
func mysqlPassword(t []byte, start int) (int, int, bool) {
	if start > 0 && word.has(t[start-1]) {
		return 0, 0, false
	}
	j := start
	for j < len(t) && (t[j] >= 'a' && t[j] <= 'z' || t[j] == '-') {
		j++
	}
	for end := min(len(t), j+256); j+3 < end && !lineEnd(t, j); j++ {
		if (t[j] == ' ' || t[j] == '\t') && t[j+1] == '-' && t[j+2] == 'p' && !lineEnd(t, j+3) && t[j+3] != ' ' {
			return passwordValue(t, j+3, 3, false)
		}
	}
	return 0, 0, false
}

// sshpassPassword finds sshpass -p V.
func sshpassPassword(t []byte, start int) (int, int, bool) {
	j := start + len("sshpass")
	if !bytes.HasPrefix(t[start:], []byte("sshpass -p")) || start > 0 && word.has(t[start-1]) {
		return 0, 0, false
	}
	j += len(" -p")
	if j >= len(t) || t[j] != ' ' && t[j] != '\t' {
		return 0, 0, false
	}
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	return passwordValue(t, j, 3, false)
}

// lineEnd reports whether a command line ends at t[j]: a line break
// (or its escape), or ; | &.
func lineEnd(t []byte, j int) bool {
	switch t[j] {
	case '\n', '\r', ';', '|', '&':
		return true
	case '\\':
		return j+1 < len(t) && (t[j+1] == 'n' || t[j+1] == 'r')
	}
	return false
}

// passwordValue returns the bounds of the value at p, quoted or not,
// when it has at least least bytes and is no placeholder, variable or
// template; a value that stands apart from its flag (spaced) must hold
// a digit or a symbol besides letters.
func passwordValue(t []byte, p, least int, spaced bool) (int, int, bool) {
	for p < len(t) && t[p] == '\\' {
		p++
	}
	var q byte
	if p < len(t) && (t[p] == '"' || t[p] == '\'') {
		q = t[p]
		p++
	}
	e := p
	for e < len(t) && e-p <= 256 && valueByte(t[e], q) {
		e++
	}
	v := t[p:e]
	if len(v) < least || len(v) > 256 || bytes.IndexByte([]byte("$<{%*[(-.`"), v[0]) >= 0 || isPlaceholder(v) {
		return 0, 0, false
	}
	if spaced && !bytes.ContainsFunc(v, func(r rune) bool { return r < 'A' || r > 'Z' && r < 'a' || r > 'z' }) {
		return 0, 0, false
	}
	return p, e, true
}

// valueByte reports whether c goes on a value quoted with q (0: not
// quoted).
func valueByte(c, q byte) bool {
	switch c {
	case '\\', '\n', '\r':
		return false
	case q:
		return false
	}
	if q != 0 {
		return true
	}
	return c > ' ' && c != '"' && c != '\'' && c != ';' && c != '|' && c != '&' && c != ')' && c != '`'
}
