package packaging_test

import (
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction: its keyword, upper-cased,
// its --flags, and the rest of its text, continuation lines joined.
type instruction struct {
	line  int
	cmd   string
	flags map[string]string
	args  string
}

// stage is the instructions from one FROM to the next.
type stage struct {
	image, name string
	insts       []instruction
}

// parseDockerfile splits a Dockerfile into stages. It knows what this
// repository's Dockerfile uses: comments, parser directives, blank lines,
// backslash continuations, --flags.
func parseDockerfile(t *testing.T, text string) []stage {
	t.Helper()
	var stages []stage
	var buf strings.Builder
	start := 0
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if buf.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if buf.Len() == 0 {
			start = i + 1
		}
		if strings.HasPrefix(line, "#") { // a comment inside a continuation
			continue
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			buf.WriteString(cont + " ")
			continue
		}
		buf.WriteString(line)
		in := parseInstruction(start, buf.String())
		buf.Reset()
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			s := stage{image: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			stages = append(stages, s)
			continue
		}
		if len(stages) > 0 {
			stages[len(stages)-1].insts = append(stages[len(stages)-1].insts, in)
		}
	}
	if buf.Len() > 0 {
		t.Fatalf("Dockerfile ends inside a continuation")
	}
	return stages
}

func parseInstruction(line int, text string) instruction {
	cmd, rest, _ := strings.Cut(text, " ")
	in := instruction{line: line, cmd: strings.ToUpper(cmd), flags: map[string]string{}}
	rest = strings.TrimSpace(rest)
	for strings.HasPrefix(rest, "--") {
		flag, after, _ := strings.Cut(rest, " ")
		k, v, _ := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
		in.flags[k] = v
		rest = strings.TrimSpace(after)
	}
	in.args = rest
	return in
}

// all returns the stage's instructions of kind cmd.
func (s stage) all(cmd string) []instruction {
	var out []instruction
	for _, in := range s.insts {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// last returns the stage's last instruction of kind cmd (the one that
// counts for USER, CMD, ENTRYPOINT, HEALTHCHECK, EXPOSE).
func (s stage) last(t *testing.T, cmd string) instruction {
	t.Helper()
	all := s.all(cmd)
	if len(all) == 0 {
		t.Fatalf("Dockerfile: the runtime stage has no %s", cmd)
	}
	return all[len(all)-1]
}

// env returns the stage's ENV settings (KEY=VALUE form).
func (s stage) env() map[string]string {
	env := map[string]string{}
	for _, in := range s.all("ENV") {
		for _, kv := range strings.Fields(in.args) {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = strings.Trim(v, `"'`)
		}
	}
	return env
}

// execForm parses a JSON-array (exec form) argument.
func execForm(t *testing.T, in instruction, text string) []string {
	t.Helper()
	var argv []string
	if err := json.Unmarshal([]byte(text), &argv); err != nil || len(argv) == 0 {
		t.Fatalf("Dockerfile:%d: %s %s is not in exec form (a JSON array); the runtime image has no shell", in.line, in.cmd, text)
	}
	return argv
}

// TestDockerfile checks the Dockerfile's invariants (docker itself is not
// available to the tests; docs/deploy.md says how to build and run it).
func TestDockerfile(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := parseDockerfile(t, string(text))
	if len(stages) < 2 {
		t.Fatalf("Dockerfile has %d stage(s); want a builder and a runtime stage", len(stages))
	}
	build, run := stages[0], stages[len(stages)-1]
	checkBuilder(t, build)
	if strings.HasPrefix(run.image, "golang:") {
		t.Errorf("the runtime stage is based on %s, the Go toolchain image; want a minimal image", run.image)
	}
	for _, in := range run.all("COPY") {
		if from := in.flags["from"]; from != "" && from != build.name {
			t.Errorf("Dockerfile:%d: COPY --from=%s is not the builder stage %q", in.line, from, build.name)
		}
	}

	user := run.last(t, "USER").args
	if uid, _, _ := strings.Cut(user, ":"); uid == "root" || uid == "0" || uid == "" {
		t.Errorf("the runtime stage runs as %q; want a non-root user", user)
	}
	env := run.env()
	checkSettings(t, "Dockerfile", string(text))
	checkDataVolume(t, run, env, user)
	port := checkListen(t, run, env)
	checkHealthcheck(t, run, port)
	if cmd := execForm(t, run.last(t, "CMD"), run.last(t, "CMD").args); cmd[0] != "serve" {
		t.Errorf("the image's CMD is %q; want serve", cmd)
	}
}

// checkBuilder: a Go image, and a static, trimmed build of cmd/sharevat.
func checkBuilder(t *testing.T, build stage) {
	t.Helper()
	if !strings.HasPrefix(build.image, "golang:") || build.name == "" {
		t.Errorf("the first stage is %q named %q; want a named golang builder", build.image, build.name)
	}
	for _, in := range build.all("RUN") {
		if !strings.Contains(in.args, "go build") {
			continue
		}
		for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "./cmd/sharevat"} {
			if !strings.Contains(in.args, want) {
				t.Errorf("Dockerfile:%d: the go build lacks %s", in.line, want)
			}
		}
		return
	}
	t.Error("the builder stage runs no go build")
}

// checkDataVolume: SHAREVAT_DATA is a VOLUME, and the runtime user owns
// what the image puts there (a COPY --chown as that user).
func checkDataVolume(t *testing.T, run stage, env map[string]string, user string) {
	t.Helper()
	data := env["SHAREVAT_DATA"]
	if data == "" {
		t.Fatal("the runtime stage sets no SHAREVAT_DATA")
	}
	var vols []string
	for _, in := range run.all("VOLUME") {
		if strings.HasPrefix(in.args, "[") {
			vols = append(vols, execForm(t, in, in.args)...)
		} else {
			vols = append(vols, strings.Fields(in.args)...)
		}
	}
	if !slices.Contains(vols, data) {
		t.Errorf("SHAREVAT_DATA=%s is not a VOLUME (volumes: %q)", data, vols)
	}
	for _, in := range run.all("COPY") {
		if in.flags["chown"] == user {
			return
		}
	}
	t.Errorf("no COPY --chown=%s in the runtime stage: the user may not own %s", user, data)
}

// checkListen: the vat listens beyond the container's loopback (so a
// published port reaches it) on the port the image exposes; it returns
// that port.
func checkListen(t *testing.T, run stage, env map[string]string) string {
	t.Helper()
	host, port, err := net.SplitHostPort(env["SHAREVAT_LISTEN"])
	if err != nil {
		t.Fatalf("SHAREVAT_LISTEN=%q: %v", env["SHAREVAT_LISTEN"], err)
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		t.Errorf("SHAREVAT_LISTEN=%s: want every interface (0.0.0.0 or [::]); a published port cannot reach %s", env["SHAREVAT_LISTEN"], host)
	}
	exposed := strings.Fields(run.last(t, "EXPOSE").args)
	if !slices.Contains(exposed, port) && !slices.Contains(exposed, port+"/tcp") {
		t.Errorf("the vat listens on port %s; the image exposes %q", port, exposed)
	}
	return port
}

// checkHealthcheck: exec form (no shell in the image), the image's own
// binary, asking /healthz on loopback at the listen port.
func checkHealthcheck(t *testing.T, run stage, port string) {
	t.Helper()
	hc := run.last(t, "HEALTHCHECK")
	kw, argv, _ := strings.Cut(hc.args, " ")
	if kw != "CMD" {
		t.Fatalf("Dockerfile:%d: HEALTHCHECK %s; want HEALTHCHECK [options] CMD [...]", hc.line, hc.args)
	}
	cmd := execForm(t, hc, strings.TrimSpace(argv))
	entry := execForm(t, run.last(t, "ENTRYPOINT"), run.last(t, "ENTRYPOINT").args)
	if cmd[0] != entry[0] {
		t.Errorf("the healthcheck runs %s; want the image's binary %s (the image has no curl or wget)", cmd[0], entry[0])
	}
	u := healthURL(t, cmd)
	if u.Path != "/healthz" || u.Port() != port || !net.ParseIP(u.Hostname()).IsLoopback() {
		t.Errorf("the healthcheck asks %s; want http://127.0.0.1:%s/healthz", u, port)
	}
}

// healthURL is the URL argument of the healthcheck command.
func healthURL(t *testing.T, argv []string) *url.URL {
	t.Helper()
	for _, a := range argv {
		if strings.Contains(a, "://") {
			u, err := url.Parse(a)
			if err != nil {
				t.Fatalf("healthcheck URL %q: %v", a, err)
			}
			return u
		}
	}
	t.Fatalf("the healthcheck %q names no URL", argv)
	return nil
}
